import LiveResults

/// The parents of a live embedding, and what each one's embedding read: a change to a related row finds the
/// parents it can change here, in O(*a*) for *a* parents, however many there are.
struct _EmbeddingIndex<Parent: QueryableEntity>: Sendable {
    /// The parents the query selects (those an `!inner` resource leaves out too: a change can bring them in).
    private(set) var parents: [Parent.ID: Parent] = [:]
    private var reads: [Parent.ID: Set<_ReadKey>] = [:]
    private var readers: [_ReadKey: Set<Parent.ID>] = [:]
    /// The columns of each table that embeddings looked rows up by: a changed row is looked up by each.
    private var lookupColumns: [String: Set<String>] = [:]
    /// The keys some parent reads now and none did at the last ``takeKeyChanges()``, and the reverse: what the
    /// router of related events learns.
    private var keyChanges = (added: Set<_ReadKey>(), removed: Set<_ReadKey>())

    /// Records `parent`, whose embedding read `keys`, instead of what it read before.
    ///
    /// - Complexity: O(*k*) for *k* keys, before and after.
    mutating func record(_ parent: Parent, reads keys: Set<_ReadKey>) {
        let id = parent.id
        let previous = reads[id] ?? []
        for key in previous.subtracting(keys) { forget(key, of: id) }
        for key in keys.subtracting(previous) {
            if readers[key] == nil, keyChanges.removed.remove(key) == nil { keyChanges.added.insert(key) }
            readers[key, default: []].insert(id)
            if case .lookup(let table, let column, _) = key { lookupColumns[table, default: []].insert(column) }
        }
        reads[id] = keys
        parents[id] = parent
    }

    /// Forgets the parent `id`; returns whether it was recorded.
    ///
    /// - Complexity: O(*k*) for the *k* keys it read.
    @discardableResult mutating func remove(_ id: Parent.ID) -> Bool {
        for key in reads.removeValue(forKey: id) ?? [] { forget(key, of: id) }
        return parents.removeValue(forKey: id) != nil
    }

    /// Forgets every parent.
    ///
    /// - Complexity: O(*k*) for the *k* keys read.
    mutating func removeAll() {
        var changes = keyChanges
        for key in readers.keys where changes.added.remove(key) == nil { changes.removed.insert(key) }
        self = Self()
        keyChanges = changes
    }

    /// The keys that some parent reads now and none did at the last call, and those no parent reads any more.
    ///
    /// - Complexity: O(1).
    mutating func takeKeyChanges() -> (added: Set<_ReadKey>, removed: Set<_ReadKey>) {
        defer { keyChanges = ([], []) }
        return keyChanges
    }

    /// The parents whose embedding a change of `table` can change: those that read the row, and those that
    /// looked rows up by a value the changed row has. `nil` when it can change any (an invalidation, or a
    /// deletion by an id that is not a query value).
    ///
    /// - Complexity: O(*c* + *a*) for *c* columns looked up and *a* parents found.
    func parents(changedBy event: _RelatedEvent, in table: String) -> Set<Parent.ID>? {
        switch event {
        case .changed(let id, let values):
            var found = readers[.row(table: table, id: id)] ?? []
            for column in lookupColumns[table] ?? [] {
                guard let value = values[column] else { continue }
                found.formUnion(readers[.lookup(table: table, column: column, value: value)] ?? [])
            }
            return found
        case .deleted(let id?):
            return readers[.row(table: table, id: id)] ?? []
        case .deleted(nil), .invalidated:
            return nil
        }
    }

    private mutating func forget(_ key: _ReadKey, of id: Parent.ID) {
        guard var ids = readers[key] else { return }
        ids.remove(id)
        readers[key] = ids.isEmpty ? nil : ids
        if ids.isEmpty, keyChanges.added.remove(key) == nil { keyChanges.removed.insert(key) }
    }
}
