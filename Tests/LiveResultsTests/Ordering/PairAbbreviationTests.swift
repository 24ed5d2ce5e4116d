import LiveResultsTesting
import Testing

@testable import LiveResults

/// Packed pairs of abbreviations (`_PairAbbreviation`) order like the pairs, and a complete one stands for
/// its pair alone.
@Suite("Pair abbreviation")
struct PairAbbreviationTests {
    /// Values at the edges of every run length the codes distinguish, near 0, the middle and the top, and
    /// random ones.
    static let values: [UInt64] = {
        var values: Set<UInt64> = [0, 1, 2, 3, .max, .max - 1, .max - 2, 1 << 63, (1 << 63) - 1, (1 << 63) + 1]
        let bases: [UInt64] = [0, 1 << 63, .max, (1 << 63) - 1]
        for shift: UInt64 in 0..<64 {
            let bit: UInt64 = 1 << shift
            for base in bases {
                let around: [UInt64] = [base ^ bit, base &+ bit, base &- bit, base ^ (bit &- 1), base &+ bit &+ 1]
                values.formUnion(around)
            }
        }
        var random = SeededGenerator(seed: 11)
        for _ in 0..<40 { values.insert(random.next()) }
        return values.sorted()
    }()

    @Test("packed pairs order like the pairs, and complete equal ones hold equal pairs")
    func packedPairsKeepTheOrder() {
        let values = Self.values
        var random = SeededGenerator(seed: 12)
        var violations: [String] = []
        for _ in 0..<50_000 {
            let left = (values.randomElement(using: &random)!, values.randomElement(using: &random)!)
            let right = relative(of: left, values, &random)
            let (packedLeft, packedRight) = (
                _PairAbbreviation.pack(left.0, left.1), _PairAbbreviation.pack(right.0, right.1)
            )
            let precedes = left.0 < right.0 || (left.0 == right.0 && left.1 < right.1)
            if packedLeft < packedRight && !precedes { violations.append("\(left) \(right)") }
            if packedLeft == packedRight && _PairAbbreviation.isComplete(packedLeft) && left != right {
                violations.append("complete \(left) \(right)")
            }
        }
        #expect(violations.isEmpty, "\(violations.prefix(5))")
    }

    @Test("small numbers of either sign or order pack completely; wide ones do not")
    func completeness() {
        let signed = { (value: Int64) in _Abbreviation.signed(value) }
        let pairs: [(Int64, Int64)] = [(0, 0), (9, 99_999), (-9, -99_999), (7, 1 << 40), (1 << 20, -(1 << 25))]
        for (first, second) in pairs {
            #expect(_PairAbbreviation.isComplete(_PairAbbreviation.pack(signed(first), signed(second))))
            #expect(_PairAbbreviation.isComplete(_PairAbbreviation.pack(~signed(first), ~signed(second))))
        }
        #expect(_PairAbbreviation.isComplete(_PairAbbreviation.pack(5, .max - 5)), "unsigned, forward and reversed")
        #expect(!_PairAbbreviation.isComplete(_PairAbbreviation.pack(signed(9), signed(.max / 3))))
        #expect(!_PairAbbreviation.isComplete(_PairAbbreviation.pack(signed(.min / 3), signed(0))))
        #expect(!_PairAbbreviation.isComplete(_PairAbbreviation.pack(signed(1), _Abbreviation.floatingPoint(1.5))))
    }

    /// A pair to compare with `pair`: often with the same first value, sometimes the same pair.
    private func relative(
        of pair: (UInt64, UInt64), _ values: [UInt64], _ random: inout SeededGenerator
    ) -> (UInt64, UInt64) {
        let other = values.randomElement(using: &random)!
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return pair
        case 1: return (other, values.randomElement(using: &random)!)
        default: return (pair.0, other)
        }
    }
}
