import LiveResults

/// The entity every benchmark uses: a row with a section, an integer sort key and a title.
///
/// All of its strings are short enough to be stored inline, so an array of rows holds the whole
/// entity (`MemoryLayout<Row>.stride` bytes each) and nothing else on the heap. It is `Codable` for
/// the persisted-results benchmark (a cache policy needs a `Codable` entity).
public struct Row: FetchableEntity, Codable {
    public var id: Int
    public var section: String
    public var score: Int
    public var title: String

    public init(id: Int, section: String, score: Int, title: String) {
        self.id = id
        self.section = section
        self.score = score
        self.title = title
    }
}

extension Row {
    /// Whether `lhs` comes before `rhs` in the display order every design uses: section name,
    /// then score, then insertion position (the tie-breaker that makes the order total).
    @inlinable
    public static func precedes(_ lhs: Row, at lhsPosition: Int, _ rhs: Row, at rhsPosition: Int) -> Bool {
        if lhs.section != rhs.section { return lhs.section < rhs.section }
        if lhs.score != rhs.score { return lhs.score < rhs.score }
        return lhsPosition < rhsPosition
    }
}
