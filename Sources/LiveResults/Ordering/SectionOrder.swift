/// The order of the sections of a ``FetchedResultsController``.
///
/// Section names compare with Swift's `String` ordering (Unicode code points of the canonical form,
/// the same on every platform and locale). Use ``custom(_:)`` for a locale-aware or domain order.
///
/// ```swift
/// // Priorities "high", "medium", "low" in that order, not alphabetically.
/// let rank = ["high": 0, "medium": 1, "low": 2]
/// let order = SectionOrder.custom { rank[$0, default: 3] < rank[$1, default: 3] }
/// ```
public struct SectionOrder: Sendable {
    @usableFromInline let _areInIncreasingOrder: @Sendable (String, String) -> Bool

    /// Ascending by name: `"a"` before `"b"`. The default.
    public static let ascending = SectionOrder { $0 < $1 }

    /// Descending by name: `"b"` before `"a"`.
    public static let descending = SectionOrder { $0 > $1 }

    /// A custom order of section names.
    ///
    /// - Parameter areInIncreasingOrder: A strict weak ordering of section names. Names it considers
    ///   equivalent but that differ are ordered by ``ascending`` so the order stays total.
    ///   It must not call back into the controller.
    @inlinable public static func custom(_ areInIncreasingOrder: @escaping @Sendable (String, String) -> Bool)
        -> SectionOrder
    {
        SectionOrder { lhs, rhs in
            if areInIncreasingOrder(lhs, rhs) { return true }
            if areInIncreasingOrder(rhs, lhs) { return false }
            return lhs < rhs
        }
    }

    /// Whether the section named `lhs` comes before the section named `rhs`.
    ///
    /// - Complexity: One call of the ordering closure (at most two and a string comparison for ``custom(_:)``).
    @inlinable public func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        _areInIncreasingOrder(lhs, rhs)
    }

    @usableFromInline
    init(_areInIncreasingOrder: @escaping @Sendable (String, String) -> Bool) {
        self._areInIncreasingOrder = _areInIncreasingOrder
    }
}
