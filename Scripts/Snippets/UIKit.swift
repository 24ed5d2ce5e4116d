// A stand-in for the few UIKit declarations that the documentation's snippets call, so that
// `Scripts/check-snippets.sh` compiles those snippets, `import UIKit` included, on Linux. Each
// declaration copies UIKit's signature (iOS 18 SDK) and does nothing. A snippet that needs more of
// UIKit adds it here, copied from UIKit's interface, never simplified: the point is that the snippet
// would compile against the real UIKit too. See DEVELOPMENT.md, "Documentation".
@_exported import Foundation  // as the real UIKit re-exports it

@MainActor
open class UITableView {
    public enum RowAnimation: Int, @unchecked Sendable {
        case fade, right, left, top, bottom, none, middle
        case automatic = 100
    }

    public init() {}

    open func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {
        updates?()
        completion?(true)
    }
    open func insertSections(_ sections: IndexSet, with animation: UITableView.RowAnimation) {}
    open func deleteSections(_ sections: IndexSet, with animation: UITableView.RowAnimation) {}
    open func insertRows(at indexPaths: [IndexPath], with animation: UITableView.RowAnimation) {}
    open func deleteRows(at indexPaths: [IndexPath], with animation: UITableView.RowAnimation) {}
    open func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) {}
    open func reloadRows(at indexPaths: [IndexPath], with animation: UITableView.RowAnimation) {}
    open func reconfigureRows(at indexPaths: [IndexPath]) {}
    open func reloadData() {}
}

public struct NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType>: @unchecked Sendable
where
    SectionIdentifierType: Hashable, SectionIdentifierType: Sendable, ItemIdentifierType: Hashable,
    ItemIdentifierType: Sendable
{
    public init() {}
    public mutating func appendSections(_ identifiers: [SectionIdentifierType]) {}
    public mutating func appendItems(
        _ identifiers: [ItemIdentifierType], toSection sectionIdentifier: SectionIdentifierType? = nil
    ) {}
    public mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) {}
    public mutating func reloadItems(_ identifiers: [ItemIdentifierType]) {}
}

@MainActor
open class UITableViewDiffableDataSource<SectionIdentifierType, ItemIdentifierType>
where
    SectionIdentifierType: Hashable, SectionIdentifierType: Sendable, ItemIdentifierType: Hashable,
    ItemIdentifierType: Sendable
{
    open func apply(
        _ snapshot: NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType>,
        animatingDifferences: Bool = true, completion: (() -> Void)? = nil
    ) {}
}
