import Testing

@testable import LiveResults

/// The delivery queue takes a `Delivery` apart field by field when only `changes` sequences receive it
/// (`DeliveryRecord.takeChanges()`): a field it does not handle would leak on every such delivery. These tests
/// fail as soon as `Delivery` has a field that the take-apart's list does not name.
@Suite("Delivery engine: the take-apart of a delivery")
struct DeliveryTakeApartTests {
    typealias Engine = _DeliveryEngine<Post, Never>

    /// A delivery with every field set.
    static func delivery() -> Engine.Delivery {
        Engine.Delivery(
            changes: ChangeSet(), snapshot: nil, delegate: nil, scheduler: .immediate, changeSubscribers: [],
            observers: [], version: 1)
    }

    @Test func everyFieldOfADeliveryIsTakenApart() {
        let fields = Mirror(reflecting: Self.delivery()).children.map { $0.label ?? "" }
        #expect(fields == Engine.DeliveryRecord.fieldsTakenApart)
    }

    @Test func takingTheChangesApartLeavesTheRecordEmpty() {
        var spare: Engine.DeliveryRecord?
        let record = Engine.DeliveryRecord(Self.delivery(), reusing: &spare)
        #expect(record.isForChangeSubscribersOnly)
        let (changes, subscribers) = record.takeChanges()
        #expect(changes.isEmpty)
        #expect(subscribers.isEmpty)
        record.free()
    }
}
