import Foundation
import LiveResultsTesting
import Testing

@testable import LiveResults

/// An entity with a field of every kind the compiler handles, and one it does not.
private struct Record: FetchableEntity {
    var id: Int
    var int: Int
    var double: Double
    var string: String
    var optional: Int?
    var date: Date
    var uint8: UInt8
    var decimal: Decimal
}

@Suite("Sort descriptor compilation")
struct SortDescriptorCompilationTests {
    fileprivate static let descriptors: [(name: String, descriptor: SortDescriptor<Record>)] = [
        ("int", SortDescriptor(\Record.int)), ("int reversed", SortDescriptor(\Record.int, order: .reverse)),
        ("double", SortDescriptor(\Record.double)), ("string", SortDescriptor(\Record.string)),
        ("string reversed", SortDescriptor(\Record.string, order: .reverse)),
        ("string lexical", SortDescriptor(\Record.string, comparator: .lexical)),
        ("string lexical reversed", SortDescriptor(\Record.string, comparator: .lexical, order: .reverse)),
        ("optional", SortDescriptor(\Record.optional)),
        ("optional reversed", SortDescriptor(\Record.optional, order: .reverse)),
        ("date", SortDescriptor(\Record.date)), ("uint8", SortDescriptor(\Record.uint8)),
        ("decimal (not compiled)", SortDescriptor(\Record.decimal)),
    ]

    @Test("a compiled descriptor compares exactly like Foundation's", arguments: descriptors.indices)
    func compiledMatchesFoundation(index: Int) {
        let descriptor = Self.descriptors[index].descriptor
        expectSameOrder(_EntityOrdering<Record>.comparison(of: [descriptor]), { descriptor.compare($0, $1) })
    }

    @Test("several compiled descriptors compare like Foundation's in turn")
    func chainsMatchFoundation() {
        let descriptors = [
            SortDescriptor(\Record.uint8), SortDescriptor(\Record.string, order: .reverse), SortDescriptor(\Record.int),
        ]
        expectSameOrder(_EntityOrdering<Record>.comparison(of: descriptors)) { lhs, rhs in
            for descriptor in descriptors {
                let result = descriptor.compare(lhs, rhs)
                if result != .orderedSame { return result }
            }
            return .orderedSame
        }
    }

    @Test("abbreviated keys keep Foundation's order", arguments: descriptors.indices)
    func abbreviationsKeepTheOrder(index: Int) {
        let descriptor = Self.descriptors[index].descriptor
        let rule = _EntityOrdering<Record>.rule(of: [descriptor])
        guard let abbreviation = rule.abbreviation else { return }
        var violations = 0
        let records = Self.records()
        for (lhs, rhs) in zip(records, records.reversed()) {
            let order = descriptor.compare(lhs, rhs)
            let (left, right) = (abbreviation(lhs), abbreviation(rhs))
            if left < right && order != .orderedAscending { violations += 1 }
            if left == right && order != .orderedSame { violations += 1 }
        }
        #expect(violations == 0)
    }

    @Test("numbers and dates are abbreviated exactly; strings and other types are not")
    func whichKeysAreAbbreviated() {
        let abbreviated = Self.descriptors.map { _EntityOrdering<Record>.rule(of: [$0.descriptor]).abbreviationIsExact }
        let names = Self.descriptors.map(\.name)
        let expected = names.map { ["int", "int reversed", "double", "date", "uint8"].contains($0) }
        #expect(abbreviated == expected)
        #expect(
            !_EntityOrdering<Record>.rule(of: [SortDescriptor(\Record.int), SortDescriptor(\Record.double)])
                .abbreviationIsExact)
    }

    private func expectSameOrder(
        _ compiled: (Record, Record) -> ComparisonResult,
        _ foundation: (Record, Record) -> ComparisonResult,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var random = SeededGenerator(seed: 7)
        let records = Self.records()
        var mismatches = 0
        for (lhs, rhs) in zip(records, records.shuffled(using: &random))
        where compiled(lhs, rhs) != foundation(lhs, rhs) {
            mismatches += 1
        }
        #expect(mismatches == 0, sourceLocation: sourceLocation)
    }

    fileprivate static func records() -> [Record] {
        var random = SeededGenerator(seed: 7)
        let strings = ["", "a", "A", "b", "B", "é", "e\u{301}", "ä", "z", "Z", "10", "9", "a b", "日本", "🍎"]
        return (0..<300).map { id in
            Record(
                id: id, int: [Int.min, -3, -1, 0, 2, Int.max][Int.random(in: 0..<6, using: &random)],
                double: [-Double.infinity, -1.5, -0.0, 0, 0.5, 2, .infinity][Int.random(in: 0..<7, using: &random)],
                string: strings.randomElement(using: &random)!,
                optional: [nil, 1, 2][Int.random(in: 0..<3, using: &random)],
                date: Date(timeIntervalSince1970: Double(Int.random(in: -2..<3, using: &random))),
                uint8: UInt8.random(in: 0..<3, using: &random),
                decimal: Decimal(Int.random(in: 0..<3, using: &random))
            )
        }
    }
}
