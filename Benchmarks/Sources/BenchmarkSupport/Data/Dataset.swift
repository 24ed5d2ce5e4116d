/// The seeded data every benchmark starts from.
public enum Dataset {
    /// The entity counts the benchmarks run at.
    public static let sizes = [1_000, 10_000, 100_000, 1_000_000]

    /// The seed of the initial rows; event streams and refetch results derive their own seeds from it.
    public static let seed: UInt64 = 0x5EED_0003

    /// The 20 section names, in ascending order.
    public static let sectionNames: [String] = (0..<20).map { index in
        index < 10 ? "section 0\(index)" : "section \(index)"
    }

    /// Scores are drawn from `0..<scoreRange`.
    public static let scoreRange = 1_000_000

    /// `count` rows with ids `0..<count`, so a row's id is also its position in the fetch result.
    public static func rows(count: Int, seed: UInt64 = seed) -> [Row] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { id in randomRow(id: id, using: &random) }
    }

    /// Rows with the ids `ids`, random sections and scores drawn from `seed`.
    public static func rows(ids: Range<Int>, seed: UInt64) -> [Row] {
        var random = SplitMix64(seed: seed)
        return ids.map { id in randomRow(id: id, using: &random) }
    }

    /// A row with a random section and score.
    static func randomRow(id: Int, using random: inout SplitMix64) -> Row {
        Row(id: id, section: randomSection(using: &random), score: random.below(scoreRange), title: "title \(id)")
    }

    static func randomSection(using random: inout SplitMix64) -> String {
        sectionNames[random.below(sectionNames.count)]
    }

    /// A short label for an entity count: 1k, 20k, 1M.
    public static func label(_ count: Int) -> String {
        if count >= 1_000_000, count.isMultiple(of: 1_000_000) { return "\(count / 1_000_000)M" }
        if count >= 1_000, count.isMultiple(of: 1_000) { return "\(count / 1_000)k" }
        return "\(count)"
    }
}
