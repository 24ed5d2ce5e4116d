@testable import LiveResults
import Testing

/// The follower's index of which controller holds which key, one test per transition, on the value alone:
/// a batch reaches the controllers holding one of its keys, an invalidation reaches every controller, and a
/// controller that is gone, or detached, is forgotten with its keys.
@Suite("Association follower")
struct AssociationFollowerTests {
    final class Listener: _RelatedChangesListener {
        func relatedChangesArrived(_ changes: _RelatedChanges, association: ObjectIdentifier) {}
    }

    let association = Listener()
    let first = Listener()
    let second = Listener()

    func key(_ value: Int) -> _AssociationKey { _AssociationKey(value) }

    func changes(_ keys: Int...) -> _RelatedChanges {
        var changes = _RelatedChanges()
        for key in keys { changes.values[self.key(key)] = .some(key) }
        return changes
    }

    func attached() -> _AssociationFollower.Listeners {
        var listeners = _AssociationFollower.Listeners()
        for listener in [first, second] {
            listeners.attachments[ObjectIdentifier(listener)] = .init(
                listener, association: ObjectIdentifier(association))
        }
        return listeners
    }

    func ids(_ attachments: [_AssociationFollower.Attachment]) -> Set<ObjectIdentifier> {
        Set(attachments.compactMap { $0.listener.map(ObjectIdentifier.init) })
    }

    @Test func aBatchReachesTheControllersHoldingOneOfItsKeysOnly() {
        var listeners = attached()
        listeners.reference([key(1): true, key(2): true], by: ObjectIdentifier(first))
        listeners.reference([key(2): true], by: ObjectIdentifier(second))
        #expect(ids(listeners.concerned(by: changes(1))) == [ObjectIdentifier(first)])
        #expect(ids(listeners.concerned(by: changes(2))) == [ObjectIdentifier(first), ObjectIdentifier(second)])
        #expect(listeners.concerned(by: changes(3)).isEmpty, "a key no controller holds reaches none")
    }

    @Test func aKeyNoLongerHeldNoLongerReachesTheController() {
        var listeners = attached()
        listeners.reference([key(1): true], by: ObjectIdentifier(first))
        listeners.reference([key(1): false], by: ObjectIdentifier(first))
        #expect(listeners.concerned(by: changes(1)).isEmpty)
        #expect(listeners.holders.isEmpty && listeners.held[ObjectIdentifier(first)] == [])
    }

    @Test func anInvalidationReachesEveryController() {
        var listeners = attached()
        #expect(
            ids(listeners.concerned(by: _RelatedChanges(invalidates: true)))
                == [ObjectIdentifier(first), ObjectIdentifier(second)])
    }

    @Test func aDetachedControllerIsForgottenWithItsKeys() {
        var listeners = attached()
        listeners.reference([key(1): true], by: ObjectIdentifier(first))
        listeners.reference([key(1): true], by: ObjectIdentifier(second))
        listeners.detach(ObjectIdentifier(first))
        #expect(ids(listeners.concerned(by: changes(1))) == [ObjectIdentifier(second)])
        #expect(listeners.held[ObjectIdentifier(first)] == nil && listeners.attachments.count == 1)
    }

    @Test func aControllerThatIsGoneIsForgottenWhenABatchConcernsIt() {
        var listeners = attached()
        var gone: Listener? = Listener()
        let goneID = ObjectIdentifier(gone!)
        listeners.attachments[goneID] = .init(gone!, association: ObjectIdentifier(association))
        listeners.reference([key(1): true], by: goneID)
        gone = nil
        #expect(listeners.concerned(by: changes(1)).isEmpty)
        #expect(listeners.attachments[goneID] == nil && listeners.holders[key(1)] == nil)
    }

    @Test func aBatchIsReducedToTheLastEventOfEachKeyAfterItsLastInvalidation() {
        let events: [EntityEvent<Author>] = [
            .updated(Author(id: 1, name: "a")), .invalidated, .updated(Author(id: 2, name: "b")), .deleted(3),
            .updated(Author(id: 2, name: "c")),
        ]
        let changes = _RelatedChanges(events)
        #expect(changes.invalidates)
        #expect(Set(changes.values.keys) == [key(2), key(3)])
        #expect((changes.values[key(2)] ?? nil) as? Author == Author(id: 2, name: "c"))
        #expect(changes.values[key(3)]! == nil, "a deleted key has no value")
    }
}
