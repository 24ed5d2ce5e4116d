import Foundation
import LiveResultsTesting
import Testing

@testable import LiveResults

/// An entity with two-key sorts of every shape: few priorities, so the first key ties often, then a
/// second key of each kind the storage abbreviates, or does not.
private struct Job: FetchableEntity, CustomStringConvertible {
    var id: Int64
    var section: String
    var priority: Int
    var small: UInt8
    var rank: Int
    var stamp: Int64
    var when: Date
    var weight: Double
    var name: String

    var description: String { "#\(id)(\(section),\(priority),\(small),\(rank),\(stamp),\(when),\(weight),\(name))" }
}

/// The storage orders two-key sorts, whose first two keys it packs into one abbreviation when they are
/// numbers (see `_PairAbbreviation`), exactly like Foundation's descriptors followed by insertion order,
/// through a fetch and random inserts, removals and moves.
@Suite("Storage with two sort keys")
struct SectionedStorageTwoKeyTests {
    fileprivate static let sorts: [(name: String, descriptors: [SortDescriptor<Job>], packs: Bool)] = [
        ("priority, id", [SortDescriptor(\Job.priority), SortDescriptor(\Job.id)], true),
        ("priority reversed, id", [SortDescriptor(\Job.priority, order: .reverse), SortDescriptor(\Job.id)], true),
        ("priority, id reversed", [SortDescriptor(\Job.priority), SortDescriptor(\Job.id, order: .reverse)], true),
        ("priority, rank (ties)", [SortDescriptor(\Job.priority), SortDescriptor(\Job.rank)], true),
        ("small, wide Int64", [SortDescriptor(\Job.small), SortDescriptor(\Job.stamp)], true),
        (
            "priority reversed, date reversed",
            [SortDescriptor(\Job.priority, order: .reverse), SortDescriptor(\Job.when, order: .reverse)], true
        ),
        ("priority, double", [SortDescriptor(\Job.priority), SortDescriptor(\Job.weight)], true),
        ("priority, string (not packed)", [SortDescriptor(\Job.priority), SortDescriptor(\Job.name)], false),
        (
            "small, rank, then name (three keys)",
            [SortDescriptor(\Job.small), SortDescriptor(\Job.rank), SortDescriptor(\Job.name)], true
        ),
        (
            "double, priority (first not an integer)", [SortDescriptor(\Job.weight), SortDescriptor(\Job.priority)],
            false
        ),
    ]

    @Test("which sorts pack their first two keys", arguments: sorts.indices)
    func packing(index: Int) {
        let sort = Self.sorts[index]
        let rule = _EntityOrdering<Job>.rule(of: sort.descriptors)
        #expect((rule.pairedField != nil) == sort.packs)
        #expect(rule.pairIsExact == (sort.packs && sort.descriptors.count == 2))
        #expect(!rule.abbreviationIsExact)
    }

    @Test("random fetches, inserts, removals and moves keep Foundation's order", arguments: sorts.indices)
    func randomChanges(index: Int) {
        let descriptors = Self.sorts[index].descriptors
        let ordering = _EntityOrdering<Job>(
            sectionNameKeyPath: \Job.section, sectionOrder: .ascending, rule: _EntityOrdering.rule(of: descriptors))
        var random = SeededGenerator(seed: UInt64(100 + index))
        var model = (0..<300).map { _StoredEntity(entity: Self.job(Int64($0), &random), sequence: UInt64($0)) }
        // Fetched out of insertion order, so that ties of exact keys are ordered by sequence too.
        var storage = _SectionedStorage(ordering: ordering, contents: model.shuffled(using: &random))
        expectSameOrder(storage, model, descriptors)
        var next = UInt64(model.count)
        for step in 0..<1_500 {
            let position = Int.random(in: 0..<model.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let stored = _StoredEntity(entity: Self.job(Int64(next), &random), sequence: next)
                storage.insert(stored)
                model.append(stored)
                next += 1
            case 1:
                storage.remove(id: model[position].entity.id)
                model.remove(at: position)
            default:
                let old = model[position]
                var new = old
                new.entity = Self.job(old.entity.id, &random)
                _ = storage.move(
                    old, inSection: old.entity.section, to: new, inSection: new.entity.section)
                model[position] = new
            }
            if step.isMultiple(of: 100) {
                storage._checkInvariants()
                expectSameOrder(storage, model, descriptors)
            }
            if let stored = model.randomElement(using: &random) {
                let expected = Self.sorted(model, descriptors).firstIndex { $0.entity.id == stored.entity.id }
                let indexPath = storage.indexPath(forID: stored.entity.id)
                #expect(indexPath.map { storage.globalIndex(of: $0) } == expected)
            }
        }
        storage._checkInvariants()
        expectSameOrder(storage, model, descriptors)
    }

    private func expectSameOrder(
        _ storage: _SectionedStorage<Job>, _ model: [_StoredEntity<Job>], _ descriptors: [SortDescriptor<Job>],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let stored = storage.stored(inGlobalRange: 0..<storage.count)
        #expect(stored == Self.sorted(model, descriptors), sourceLocation: sourceLocation)
    }

    /// The reference order: section, then the descriptors as Foundation compares them, then insertion.
    private static func sorted(
        _ model: [_StoredEntity<Job>], _ descriptors: [SortDescriptor<Job>]
    ) -> [_StoredEntity<Job>] {
        model.sorted { lhs, rhs in
            if lhs.entity.section != rhs.entity.section { return lhs.entity.section < rhs.entity.section }
            for descriptor in descriptors {
                switch descriptor.compare(lhs.entity, rhs.entity) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return lhs.sequence < rhs.sequence
        }
    }

    /// The keys jobs draw from: ties everywhere, the extremes of each type, -0.0 beside 0.0, neighbours
    /// that a packed pair cuts off, no NaN (it has no place in Foundation's order).
    private static let stamps: [Int64] = [.min, .min + 1, -(1 << 40), -1, 0, 1, 1 << 40, 1 << 62, (1 << 62) + 1, .max]
    private static let dates: [Date] = [
        .distantPast, Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 1.0.nextUp), .distantFuture,
    ]
    private static let weights: [Double] = [-.infinity, -1.5, -0.0, 0.0, 1e-300, 0.5, 0.5.nextUp, .infinity]
    private static let smalls: [UInt8] = [0, 1, 2, 255]
    private static let names = ["", "a", "B", "é", "e\u{301}"]

    /// A job of random keys from the sets above.
    private static func job(_ id: Int64, _ random: inout SeededGenerator) -> Job {
        func pick<Value>(_ values: [Value]) -> Value { values.randomElement(using: &random)! }
        return Job(
            id: id, section: pick(["a", "b"]), priority: Int.random(in: -2..<4, using: &random), small: pick(smalls),
            rank: Int.random(in: 0..<3, using: &random), stamp: pick(stamps), when: pick(dates),
            weight: pick(weights), name: pick(names))
    }
}
