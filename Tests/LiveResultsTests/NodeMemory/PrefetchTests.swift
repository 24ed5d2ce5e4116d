import Testing

@testable import LiveResults

/// Sixteen bytes, four to a cache line; the first byte is what a prefetch reads.
private struct Narrow {
    var first: UInt64
    var second: UInt64 = 0
}

/// Forty bytes, so lines and elements do not line up.
private struct Wide {
    var first: UInt64
    var rest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
}

@Suite("Prefetching loads")
struct PrefetchTests {
    /// Elements whose first bytes are distinct bits (cycling through the eight), so the OR a load returns
    /// tells which elements it read.
    private static func firstBytes(count: Int) -> [UInt64] {
        (0..<count).map { UInt64(1) << UInt64($0 % 8) }
    }

    @Test("one byte per line, from the first element of each, and nothing past the count")
    func narrowElementsOnePerLine() {
        let elements = Self.firstBytes(count: 16).map { Narrow(first: $0) }
        elements.withUnsafeBufferPointer { buffer in
            for count in 0...16 {
                // Elements 0, 4, 8, 12 start the lines of a 16-byte stride.
                let expected = stride(from: 0, to: count, by: 4).reduce(UInt8(0)) { $0 | UInt8(elements[$1].first) }
                #expect(_Prefetch.load(elementsFrom: buffer.baseAddress!, count: count) == expected, "count \(count)")
            }
        }
    }

    @Test("elements wider than half a line are each read")
    func wideElementsEachRead() {
        let elements = Self.firstBytes(count: 6).map { Wide(first: $0) }
        elements.withUnsafeBufferPointer { buffer in
            for count in 0...6 {
                let expected = elements.prefix(count).reduce(UInt8(0)) { $0 | UInt8($1.first) }
                #expect(_Prefetch.load(elementsFrom: buffer.baseAddress!, count: count) == expected, "count \(count)")
            }
        }
    }

    @Test("a descent that prefetches finds what one that does not would, in a tree of several levels")
    func descentsAgreeWithPositions() {
        // Leaves of 60 under internal nodes of 15: 20 000 elements make a tree of height 3, so descents
        // prefetch internal children as well as leaves.
        let tree = _Tree<Number>(sorted: (0..<20_000).map(Number.init))
        #expect(tree.root!.height == 3)
        for value in stride(from: -1, through: 20_000, by: 7) {
            #expect(tree.partitioningIndex { $0 >= value } == Swift.max(0, value))
        }
        for position in stride(from: 0, to: 20_000, by: 13) { #expect(tree[position].value == position) }
    }
}

/// A tree element of the default node capacities.
private struct Number: _TreeElement {
    var value: Int
    var treeKey: Int { value }
    var treeWeight: Int { 1 }
}
