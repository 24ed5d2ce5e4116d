import Foundation
import LiveResults

/// The order of embedded rows: their parents' order, as the query's sort descriptors name it.
struct _ParentOrder<Parent: QueryableEntity>: SortComparator, Sendable {
    let descriptors: [SortDescriptor<Parent>]
    var order: SortOrder = .forward

    func compare(_ lhs: EmbeddedRow<Parent>, _ rhs: EmbeddedRow<Parent>) -> ComparisonResult {
        for descriptor in descriptors {
            let result = descriptor.compare(lhs.parent, rhs.parent)
            guard result == .orderedSame else {
                guard order == .reverse else { return result }
                return result == .orderedAscending ? .orderedDescending : .orderedAscending
            }
        }
        return .orderedSame
    }
}
