import Foundation

/// The row changes of one transaction, by relation, gathered from its Begin to its Commit message.
struct _FeedTransaction {
    /// One change, with the relation's description at the time.
    struct Change {
        var relation: _PgOutputMessage.Relation
        var message: _PgOutputMessage
    }

    /// The xid of the Begin message.
    let xid: UInt32
    /// The changes of each relation (by OID) in their order, the relations in the order of their first change: a
    /// transaction touches a few tables, so a list searched costs less than a dictionary made for each one.
    private var relations: [(oid: UInt32, changes: [Change])] = []

    init(xid: UInt32) { self.xid = xid }

    mutating func add(_ message: _PgOutputMessage, relation: _PgOutputMessage.Relation) {
        let change = Change(relation: relation, message: message)
        if let index = relations.lastIndex(where: { $0.oid == relation.oid }) {
            relations[index].changes.append(change)
        } else {
            relations.append((relation.oid, [change]))
        }
    }

    /// The changes of the relation of OID `oid`, in their order; `nil` when it has none.
    func changes(of oid: UInt32) -> [Change]? {
        relations.first { $0.oid == oid }?.changes
    }

    /// A table's changes as the items of its deliveries; `idColumn` names the column of each row's id.
    ///
    /// - Throws: ``PostgresLiveTableError/idNotInReplicaIdentity(table:idColumn:)`` when a delete's key lacks
    ///   the id column (the table's replica identity is another index).
    static func items(
        of changes: [Change], idColumn: String
    ) throws(PostgresLiveTableError) -> [_TransactionBatch.Item] {
        var items: [_TransactionBatch.Item] = []
        items.reserveCapacity(changes.count)
        for change in changes {
            let columns = change.relation.columns
            if case .truncate = change.message {
                items.append(.invalidated)
                continue
            }
            guard let idIndex = columns.firstIndex(where: { $0.name == idColumn }) else {
                throw .idNotInReplicaIdentity(table: change.relation.name, idColumn: idColumn)
            }
            let idType = columns[idIndex].typeOID
            func id(_ tuple: [_PgOutputMessage.Column]) throws(PostgresLiveTableError) -> String {
                guard idIndex < tuple.count, let id = _RowJSON.value(tuple[idIndex], typeOID: idType), id != "null"
                else { throw .idNotInReplicaIdentity(table: change.relation.name, idColumn: idColumn) }
                return id
            }
            switch change.message {
            case .insert(_, let new):
                items.append(row(new, columns: columns, isInsert: true, id: try id(new)))
            case .update(_, let old, let new):
                let newID = try id(new)
                // The key changed: the old id leaves the results and the new one joins them.
                if let old, let oldID = try? id(old), oldID != newID {
                    items.append(.deleted(id: oldID))
                    items.append(row(new, columns: columns, isInsert: true, id: newID))
                } else {
                    items.append(row(new, columns: columns, isInsert: false, id: newID))
                }
            case .delete(_, let old):
                items.append(.deleted(id: try id(old)))
            default:
                continue
            }
        }
        return items
    }

    /// A row's item: its columns, or, when a TOASTed column was left unchanged (not sent), the row to fetch.
    private static func row(
        _ tuple: [_PgOutputMessage.Column], columns: [_PgOutputMessage.Relation.Column], isInsert: Bool, id: String
    ) -> _TransactionBatch.Item {
        guard !tuple.contains(.unchangedToast) else {
            return .fetch(id: id, isInsert: isInsert)
        }
        return .row(.columns(_RowColumns(columns: columns, values: tuple)), isInsert: isInsert, id: id)
    }
}
