/// Chooses which surviving entities of a section stay put, so that the others are the fewest moves.
///
/// Items come in old order; an item kept must have increasing new keys (a maximum-weight increasing
/// subsequence). Weights are compared first by how many entities are kept, which makes the moves
/// minimal, then by how many *stationary* entities are kept, which makes the entities whose own events
/// repositioned them the ones that move when several minimal sets exist.
@usableFromInline enum _MinimalMoves {
    @usableFromInline struct Weight: Comparable, Sendable {
        @usableFromInline var kept: Int
        @usableFromInline var stationary: Int

        @usableFromInline static let zero = Weight(kept: 0, stationary: 0)

        @inlinable static func < (lhs: Weight, rhs: Weight) -> Bool {
            (lhs.kept, lhs.stationary) < (rhs.kept, rhs.stationary)
        }

        @inlinable static func + (lhs: Weight, rhs: Weight) -> Weight {
            Weight(kept: lhs.kept + rhs.kept, stationary: lhs.stationary + rhs.stationary)
        }

        @usableFromInline
        init(kept: Int, stationary: Int) {
            self.kept = kept
            self.stationary = stationary
        }
    }

    /// Which items to keep.
    ///
    /// - Parameters:
    ///   - newKeys: The items' positions after the change, listed in their old order; all distinct.
    ///   - weights: The items' weights, parallel to `newKeys`.
    /// - Returns: `kept[i]` tells whether item `i` keeps its place.
    /// - Complexity: O(*m* log *m*) for *m* items.
    @inlinable static func kept<Key: Comparable>(newKeys: [Key], weights: [Weight]) -> [Bool] {
        var ranks = [Int](repeating: 0, count: newKeys.count)
        for (position, item) in newKeys.indices.sorted(by: { newKeys[$0] < newKeys[$1] }).enumerated() {
            ranks[item] = position
        }
        return kept(ranks: ranks, rankCount: newKeys.count, weights: weights)
    }

    /// Which items to keep, given their ranks after the change.
    ///
    /// - Parameters:
    ///   - ranks: The items' ranks after the change, listed in their old order; distinct, in `0..<rankCount`.
    ///   - weights: The items' weights, parallel to `ranks`.
    /// - Returns: `kept[i]` tells whether item `i` keeps its place.
    /// - Complexity: O(*m* log *r*) for *m* items and *r* ranks.
    @inlinable static func kept(ranks: [Int], rankCount: Int, weights: [Weight]) -> [Bool] {
        let count = ranks.count
        // 1-based ranks for the Fenwick tree.
        let rank = ranks.map { $0 + 1 }
        var tree = _PrefixMaximum(count: rankCount)
        var total = [Weight](repeating: .zero, count: count)
        var parent = [Int](repeating: -1, count: count)
        var best: (weight: Weight, item: Int) = (.zero, -1)
        for item in 0..<count {
            let before = tree.maximum(throughRank: rank[item] - 1)
            total[item] = before.weight + weights[item]
            parent[item] = before.item
            tree.raise(rank: rank[item], to: (total[item], item))
            if best.weight < total[item] { best = (total[item], item) }
        }
        var kept = [Bool](repeating: false, count: count)
        var item = best.item
        while item >= 0 {
            kept[item] = true
            item = parent[item]
        }
        return kept
    }
}

/// A Fenwick tree of running maxima over ranks `1...count`.
@usableFromInline struct _PrefixMaximum {
    @usableFromInline var nodes: [(weight: _MinimalMoves.Weight, item: Int)]

    @inlinable init(count: Int) {
        nodes = Array(repeating: (.zero, -1), count: count + 1)
    }

    @inlinable func maximum(throughRank rank: Int) -> (weight: _MinimalMoves.Weight, item: Int) {
        var best: (weight: _MinimalMoves.Weight, item: Int) = (.zero, -1)
        var index = rank
        while index > 0 {
            if best.weight < nodes[index].weight { best = nodes[index] }
            index -= index & -index
        }
        return best
    }

    @inlinable mutating func raise(rank: Int, to value: (weight: _MinimalMoves.Weight, item: Int)) {
        var index = rank
        while index < nodes.count {
            if nodes[index].weight < value.weight { nodes[index] = value }
            index += index & -index
        }
    }
}
