import Foundation
@_spi(Testing) import LiveResults
import Testing

/// `try await loadAssociatedValue(_:for:)` waits for the value.
@Suite("Association async reads", .timeLimit(.minutes(5)), .tags(.concurrent))
struct AssociationAsyncTests {
    @Test func itWaitsForTheRequestItStarted() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(4), fetchSize: 2)
        let (reader, gate) = await fixture.heldAsyncRead(of: 3)
        // Real time, no clock of the controller's: usually lets the reader reach its wait (the path this test is
        // about) before the value arrives; it reads the same value either way.
        try await Task.sleep(for: .milliseconds(10))
        gate.open()
        #expect(try await reader.value == "v30")
        #expect(fixture.backend.requests == [[20, 30]])
        await fixture.settle()
    }

    @Test func itReturnsACachedValueOrNoValueAtOnce() async throws {
        let fixture = try await PostFixture.loaded([Post(1), Post(2), Post(3, editorID: 4)])
        fixture.backend.missing = [20]
        #expect(try await fixture.controller.loadAssociatedValue(fixture.authors, for: fixture.post(1)) == "v10")
        #expect(try await fixture.controller.loadAssociatedValue(fixture.authors, for: fixture.post(2)) == nil)
        let editors = fixture.backend.editors()
        #expect(try await fixture.controller.loadAssociatedValue(editors, for: fixture.post(1)) == nil, "a nil key")
        #expect(try await fixture.controller.loadAssociatedValue(fixture.backend.tags(), for: fixture.post(1)) == [])
        #expect(fixture.backend.requests == [[10, 20, 30]])
        await fixture.settle()
    }

    /// The *AssociatedValues* article: the synchronous read compiles as written inside an `async` function (no `try`,
    /// no `await`: Swift must not pick the waiting variant) and behaves as it does in synchronous code.
    @Test func theSynchronousReadWorksAsWrittenInAsyncCode() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3))
        let post = fixture.post(2)
        let first: String? = fixture.controller.associatedValue(fixture.authors, for: post)
        #expect(first == nil, "not cached yet: nil, and a request starts")
        let changes = try #require(await fixture.deliveries(1).first)
        fixture.expectOnlyUpdates(changes, ids: [1, 2, 3])
        #expect(fixture.controller.associatedValue(fixture.authors, for: post) == "v20")
        #expect(fixture.backend.requests == [[10, 20, 30]])
        await fixture.settle()
    }

    @Test func manyWaitersForOneEntityShareOneRequest() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(10))
        let gate = fixture.backend.holdRequests()
        let controller = fixture.controller
        let authors = fixture.authors
        let posts = fixture.controller.fetchedObjects.map { $0 }
        let values = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<50 {
                let post = posts[index % posts.count]
                group.addTask { try await controller.loadAssociatedValue(authors, for: post) }
            }
            #expect(await fixture.backend.started(1))
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values.count == 50 && values.allSatisfy { $0 != nil })
        #expect(fixture.backend.requests.count == 1)
        await fixture.settle()
    }

    @Test func itReadsAgainWhenTheKeyChangesWhileItWaits() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), fetchSize: 1)
        let (reader, gate) = await fixture.heldAsyncRead(of: 2)
        fixture.update(2) { $0.authorID = 21 }
        gate.open()
        #expect(try await reader.value == "v21", "the value of the key it has now")
        #expect(fixture.backend.requests == [[20], [21]])
        await fixture.settle()
    }

    @Test func aRefetchThatChangesTheKeyMakesItReadAgainAtOnce() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), fetchSize: 1)
        let (reader, gate) = await fixture.heldAsyncRead(of: 2)
        fixture.store.update { $0[1].authorID = 21 }
        try await fixture.controller.performFetch()
        #expect(await fixture.backend.started(2), "released by the fetch, not by the old request's end")
        #expect(fixture.backend.requests == [[20], [21]])
        gate.open()
        #expect(try await reader.value == "v21")
        await fixture.settle()
    }

    @Test func itReturnsNilWhenTheEntityIsDeletedWhileItWaits() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), fetchSize: 1)
        let (reader, gate) = await fixture.heldAsyncRead(of: 2)
        fixture.controller.apply(.deleted(2))
        gate.open()
        #expect(try await reader.value == nil)
        await fixture.settle()
    }

    @Test func cancellingTheWaitThrowsAndTheRequestStillServesTheOthers() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3))
        let (reader, gate) = await fixture.heldAsyncRead(of: 2)
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        gate.open()
        let changes = try #require(await fixture.deliveries(1).first)
        fixture.expectOnlyUpdates(changes, ids: [1, 2, 3])
        await fixture.settle()
    }

    @Test func aCancelledTaskDoesNotWait() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3))
        let (reader, gate) = await fixture.heldAsyncRead(of: 2, cancelled: true)
        await #expect(throws: CancellationError.self) { try await reader.value }
        gate.open()
        await fixture.settle()
    }
}
