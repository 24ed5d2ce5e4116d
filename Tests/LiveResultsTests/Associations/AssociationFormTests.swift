import Foundation
@_spi(Testing) import LiveResults
import Testing

/// The array form (several keys, elements in the entity's own key order) and the optional-key form
/// (a `nil` key has no value and is never requested).
@Suite("Association forms", .timeLimit(.minutes(5)))
struct AssociationFormTests {
    // MARK: Array form

    @Test func theArrayFormGivesEachEntityItsElementsInItsOwnKeyOrder() async throws {
        let posts = [
            Post(1, tagIDs: [3, 1, 2]), Post(2, tagIDs: [2, 4]), Post(3, tagIDs: []), Post(4, tagIDs: [5, 5]),
        ]
        let fixture = try await PostFixture.loaded(posts)
        let tags = fixture.backend.tags()
        fixture.backend.missing = [1]
        #expect(fixture.read(tags, fixture.post(3)) == [], "no keys: an empty value at once")
        #expect(fixture.read(tags, fixture.post(1)) == nil)
        let changes = try #require(await fixture.deliveries(1).first)
        fixture.expectOnlyUpdates(changes, ids: [1, 2, 4])
        await fixture.settle()
        #expect(fixture.backend.requests == [[3, 1, 2, 4, 5]], "each key once; post 3 has none")
        #expect(fixture.read(tags, fixture.post(1)) == ["v3", "v2"], "its key order, without the missing 1")
        #expect(fixture.read(tags, fixture.post(2)) == ["v2", "v4"])
        #expect(fixture.read(tags, fixture.post(4)) == ["v5", "v5"])
        #expect(fixture.backend.requests.count == 1)
    }

    @Test func reorderingAnEntitysKeysReassemblesItsValueFromTheCache() async throws {
        let fixture = try await PostFixture.loaded([Post(1, tagIDs: [1, 2]), Post(2, tagIDs: [1, 2])])
        let tags = fixture.backend.tags()
        _ = fixture.read(tags, fixture.post(1))
        await fixture.settle()
        fixture.update(2) { $0.tagIDs = [2, 1] }
        #expect(fixture.read(tags, fixture.post(2)) == ["v2", "v1"], "post 1 keeps keys 1 and 2 cached")
        #expect(fixture.backend.requests == [[1, 2]])
        fixture.controller._checkAssociationInvariants()
    }

    @Test func anEntityWaitsForAKeyInFlightForAnotherAndKeepsWhatArrivedFirst() async throws {
        let fixture = try await PostFixture.loaded([Post(1, tagIDs: [1, 2]), Post(2, tagIDs: [2, 3])], fetchSize: 1)
        let tags = fixture.backend.tags()
        let gate = fixture.backend.holdRequests()
        _ = fixture.read(tags, fixture.post(1))
        #expect(await fixture.backend.started(1))
        fixture.backend.releaseRequests()
        _ = fixture.read(tags, fixture.post(2))  // 2 is in flight for post 1: only 3 is requested
        #expect(await fixture.backend.started(2))
        // Real time, no clock of the controller's: usually lets 3 arrive first (post 2 keeps it); the expectations
        // hold in either order.
        try await Task.sleep(for: .milliseconds(20))
        gate.open()
        await fixture.settle()
        #expect(fixture.backend.requests == [[1, 2], [3]], "no key requested twice")
        #expect(fixture.read(tags, fixture.post(1)) == ["v1", "v2"])
        #expect(fixture.read(tags, fixture.post(2)) == ["v2", "v3"])
        #expect(Set(fixture.changeSets.flatMap(\.updatedItemIDs)) == [1, 2])
    }

    // MARK: Optional key

    @Test func aNilKeyHasNoValueAndIsNeverRequested() async throws {
        let posts = [Post(1, editorID: 7), Post(2), Post(3, editorID: 7), Post(4, editorID: 9)]
        let fixture = try await PostFixture.loaded(posts)
        let editors = fixture.backend.editors()
        #expect(fixture.read(editors, fixture.post(2)) == nil)
        await fixture.settle()
        #expect(fixture.backend.requests.isEmpty, "reading a nil key requests nothing")

        #expect(fixture.read(editors, fixture.post(1)) == nil)
        let changes = try #require(await fixture.deliveries(1).first)
        fixture.expectOnlyUpdates(changes, ids: [1, 3, 4])
        #expect(fixture.backend.requests == [[7, 9]])
        #expect(fixture.read(editors, fixture.post(3)) == "v7")
        #expect(fixture.read(editors, fixture.post(4)) == "v9")
        #expect(fixture.read(editors, fixture.post(2)) == nil)

        var edited = fixture.post(2)
        edited.editorID = 8
        var unedited = fixture.post(4)
        unedited.editorID = nil
        fixture.controller.apply([.updated(edited), .updated(unedited)])
        #expect(fixture.read(editors, fixture.post(4)) == nil)
        #expect(fixture.read(editors, fixture.post(2)) == nil)
        await fixture.settle()
        #expect(fixture.backend.requests == [[7, 9], [8]])
        #expect(fixture.read(editors, fixture.post(2)) == "v8")
    }
}
