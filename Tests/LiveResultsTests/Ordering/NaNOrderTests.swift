import Foundation
import LiveResultsTesting
import Testing

@testable import LiveResults

/// An entity with floating-point keys that can be NaN: a sensor's reading, a computed score.
private struct Reading: FetchableEntity {
    var id: Int
    var name: String
    var value: Double
    var weight: Float?

    /// Equal when every field is, NaN equal to NaN: the synthesized `==` finds a reading with a NaN unequal to
    /// itself, and the reference would see every such entity as different from the controller's.
    static func == (lhs: Reading, rhs: Reading) -> Bool {
        func same<Value: FloatingPoint>(_ lhs: Value?, _ rhs: Value?) -> Bool {
            lhs == rhs || (lhs?.isNaN == true && rhs?.isNaN == true)
        }
        return lhs.id == rhs.id && lhs.name == rhs.name && same(lhs.value, rhs.value) && same(lhs.weight, rhs.weight)
    }
}

/// NaN is unequal to itself and unordered against every number: sorted by `<` alone, it is "equal" to all of
/// them, which is no order, and a tree kept by it removes the wrong entities. The library sorts NaN after
/// every number and equal to every other NaN, as PostgreSQL does.
@Suite("NaN in sort keys")
struct NaNOrderTests {
    static let values: [Double] = [
        .nan, -.nan, Double(nan: 7, signaling: false), -.infinity, -1, -0.0, 0, 2, .infinity,
    ]

    @Test("NaN sorts after +infinity, before -infinity in reverse, and every NaN equals every other")
    func comparison() {
        let forward = _EntityOrdering<Reading>.comparison(of: [SortDescriptor(\Reading.value)])
        let reverse = _EntityOrdering<Reading>.comparison(of: [SortDescriptor(\Reading.value, order: .reverse)])
        let optional = _EntityOrdering<Reading>.comparison(of: [SortDescriptor(\Reading.weight)])
        func reading(_ value: Double, weight: Float? = nil) -> Reading {
            Reading(id: 0, name: "", value: value, weight: weight)
        }
        #expect(forward(reading(.nan), reading(.infinity)) == .orderedDescending)
        #expect(forward(reading(-1), reading(-.nan)) == .orderedAscending)
        #expect(forward(reading(.nan), reading(-.nan)) == .orderedSame)
        #expect(reverse(reading(.nan), reading(-.infinity)) == .orderedAscending)
        #expect(optional(reading(0, weight: .nan), reading(0, weight: 3)) == .orderedDescending)
        #expect(optional(reading(0, weight: nil), reading(0, weight: .nan)) == .orderedAscending)
        // The abbreviation agrees with the comparison, so that comparing abbreviations first keeps the order.
        let rule = _EntityOrdering<Reading>.rule(of: [SortDescriptor(\Reading.value)])
        for lhs in Self.values {
            for rhs in Self.values {
                let (left, right) = (rule.abbreviate(reading(lhs)), rule.abbreviate(reading(rhs)))
                let expected: ComparisonResult =
                    left < right ? .orderedAscending : left == right ? .orderedSame : .orderedDescending
                #expect(forward(reading(lhs), reading(rhs)) == expected, "\(lhs) against \(rhs)")
            }
        }
    }

    @Test(
        "random events with NaN keys: the controller equals the reference after every step",
        arguments: [["value"], ["name", "value"], ["weight", "value"], ["value reversed"]])
    func randomEvents(keys: [String]) async throws {
        let descriptors = keys.map { key -> SortDescriptor<Reading> in
            switch key {
            case "name": SortDescriptor(\Reading.name, comparator: .lexical)
            case "weight": SortDescriptor(\Reading.weight)
            case "value reversed": SortDescriptor(\Reading.value, order: .reverse)
            default: SortDescriptor(\Reading.value)
            }
        }
        var random = SeededRandom(seed: 3)
        func reading(_ id: Int) -> Reading {
            Reading(
                id: id, name: ["a", "b"].randomElement(using: &random)!,
                value: Self.values.randomElement(using: &random)!,
                weight: [nil, .nan, 1, 2].randomElement(using: &random)!)
        }
        let controller = FetchedResultsController<Reading>(
            definition: FetchDefinition(request: { [] }), sortDescriptors: descriptors,
            sectionNameKeyPath: \Reading.name)
        var reference = ReferenceResults<Reading>(sortDescriptors: descriptors, sectionNameKeyPath: \Reading.name)
        try await controller.performFetch()
        reference.fetch([])
        for step in 0..<2_000 {
            let id = Int.random(in: 0..<40, using: &random)
            let event: EntityEvent<Reading> =
                switch Int.random(in: 0..<3, using: &random) {
                case 0: .inserted(reading(id))
                case 1: .updated(reading(id))
                default: .deleted(id)
                }
            controller.apply(event)
            reference.apply(event)
            if let difference = reference.difference(from: controller.snapshot) {
                Issue.record("step \(step): \(difference)")
                return
            }
        }
    }
}
