import GRDB

/// The changes one transaction made to the observed table, as its statements run: the rowids in the order
/// they were first changed, whether each was first inserted, and whether something could not be attributed
/// to rows. A plain value, reset at each commit and rollback.
struct _TransactionChanges: Sendable {
    /// The changed rowids, in the order of their first change.
    private(set) var rowIDs: [Int64] = []
    /// For each changed rowid: whether its first change in the transaction was an insertion.
    private var firstInserted: [Int64: Bool] = [:]
    /// Whether the transaction changed the table in a way rows cannot describe.
    private(set) var isInvalidated = false

    var isEmpty: Bool { rowIDs.isEmpty && !isInvalidated }

    /// Records one row's change.
    ///
    /// - Complexity: O(1) amortized.
    mutating func record(rowID: Int64, kind: DatabaseEvent.Kind) {
        guard !isInvalidated, firstInserted[rowID] == nil else { return }
        firstInserted[rowID] = kind == .insert
        rowIDs.append(rowID)
    }

    /// Records a change that cannot be attributed to rows: the controller must refetch.
    mutating func invalidate() {
        isInvalidated = true
        rowIDs = []
        firstInserted = [:]
    }

    /// Whether `rowID`'s first change in the transaction was an insertion.
    func wasInserted(_ rowID: Int64) -> Bool {
        firstInserted[rowID] ?? false
    }
}
