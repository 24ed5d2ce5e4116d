/// How many items a collapsed section of a ``CollapsibleSections`` view still shows: all of them while it
/// has at most ``maximum``, else its first ``whenExceeding``.
///
/// ```swift
/// SectionLimit(maximum: 5, whenExceeding: 3)   // 5 items show all 5; 6 or more show the first 3
/// ```
public struct SectionLimit: Sendable, Hashable {
    /// The most items a collapsed section shows whole.
    public var maximum: Int
    /// How many items a collapsed section with more than ``maximum`` shows.
    public var whenExceeding: Int

    /// Creates a limit. Negative values count as 0, and `whenExceeding` above `maximum` as `maximum`,
    /// so a section never shows more items for having more.
    ///
    /// - Parameters:
    ///   - maximum: The most items a collapsed section shows whole.
    ///   - whenExceeding: How many it shows when it has more; `maximum` by default.
    @inlinable public init(maximum: Int, whenExceeding: Int? = nil) {
        self.maximum = Swift.max(0, maximum)
        self.whenExceeding = Swift.min(Swift.max(0, whenExceeding ?? maximum), self.maximum)
    }

    /// How many of a collapsed section's `count` items show.
    @inlinable func displayedCount(of count: Int) -> Int {
        count <= maximum ? count : whenExceeding
    }
}
