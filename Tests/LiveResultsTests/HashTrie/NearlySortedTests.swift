import LiveResultsTesting
import Testing

@testable import LiveResults

@Suite("Sorting nearly sorted collections")
struct NearlySortedTests {
    @Test("sorts runs left out of order, keeping equal keys in their order", arguments: [0, 1, 2, 5, 300])
    func sortsLikeAStableSort(count: Int) {
        var random = SeededGenerator(seed: UInt64(count))
        // Sorted by the high bits only, as a radix sort of the high half leaves them.
        let values = (0..<count).map { index in
            (
                key: UInt64.random(in: 0..<64, using: &random) << 8 | UInt64.random(in: 0..<4, using: &random),
                index: index
            )
        }
        var entries = values.sorted { $0.key >> 8 < $1.key >> 8 }
        entries._sortNearlySorted(by: \.key)
        let expected = values.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }
        #expect(entries.map(\.key) == expected.map(\.element.key))
        #expect(entries.map(\.index) == expected.map(\.element.index))
    }
}
