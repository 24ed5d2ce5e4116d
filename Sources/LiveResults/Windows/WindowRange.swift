import Foundation

/// Which positions of a controller's results a ``LiveWindow`` holds: positions count across sections,
/// in the controller's one order (section, sort descriptors, insertion).
///
/// ```swift
/// controller.window(.first(50))                        // positions 0..<50
/// controller.window(.last(20))                         // the last 20
/// controller.window(.range(offset: 100, limit: 50))    // positions 100..<150
/// ```
///
/// A range reaching past the end holds what there is, and fills as entities arrive: `.first(50)` of 30
/// entities holds the 30, and `.range(offset: 100, limit: 50)` of 120 holds positions 100..<120 (none of 80).
/// A limit of 0 holds nothing and never delivers. Negative limits and offsets are programming errors:
/// ``FetchedResultsController/window(_:)`` and ``LiveWindow/move(to:)`` stop with a precondition failure
/// that names the value (a server validates what its clients send before it makes a window).
public enum WindowRange: Sendable, Hashable {
    /// The first `limit` positions.
    case first(Int)
    /// The last `limit` positions.
    case last(Int)
    /// The `limit` positions from `offset` on.
    case range(offset: Int, limit: Int)

    /// The positions held when the results have `count` entities.
    ///
    /// ```swift
    /// WindowRange.range(offset: 10, limit: 20).positions(count: 25)   // 10..<25
    /// ```
    ///
    /// - Complexity: O(1).
    @inlinable public func positions(count: Int) -> Range<Int> {
        switch self {
        case .first(let limit): return 0..<Swift.min(limit, count)
        case .last(let limit): return Swift.max(0, count - limit)..<count
        case .range(let offset, let limit):
            let start = Swift.min(offset, count)
            return start..<Swift.min(start + Swift.min(limit, count - start), count)
        }
    }

    /// Stops the program unless the limit and the offset are non-negative.
    @inlinable func checkValid() {
        switch self {
        case .first(let limit), .last(let limit):
            precondition(limit >= 0, "a window's limit must not be negative (got \(limit))")
        case .range(let offset, let limit):
            precondition(offset >= 0, "a window's offset must not be negative (got \(offset))")
            precondition(limit >= 0, "a window's limit must not be negative (got \(limit))")
        }
    }
}
