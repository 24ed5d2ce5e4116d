import Foundation
import LiveResults

/// Answers `select=`'s embedded resources: reads each related table once per level for all the rows of that
/// level, joins in memory, and writes each row's object with its embedded objects and arrays.
struct _Embedder: Sendable {
    let relations: LiveRelations

    /// The object of each row of `table`, with what `select` embeds; `nil` for a row that an `!inner` resource
    /// leaves out (it has no related row after the resource's filters).
    ///
    /// - Complexity: One read of each embedded table per level, of the values the level's rows join on, plus
    ///   O(*r* log *r*) to order the *r* rows read.
    func objects(of rows: [_EmbeddedRow], select: SelectList, table: String) async throws -> [Data?] {
        try await embeddings(of: rows, select: select, table: table).map(\.object)
    }

    /// Each row's object, as ``objects(of:select:table:)``, with the rows and lookups it was made of at every
    /// depth: a change to one of them is what can change the object.
    ///
    /// - Complexity: As ``objects(of:select:table:)``, plus O(*k*) for the *k* keys read.
    func embeddings(of rows: [_EmbeddedRow], select: SelectList, table: String) async throws -> [_Embedding] {
        guard let columnOrder = relations.tables[table]?.columns else {
            preconditionFailure("embedding from \(table), a table the relations do not declare")
        }
        var embedded = Array(repeating: [String: Data](), count: rows.count)
        var kept = Array(repeating: true, count: rows.count)
        var reads = Array(repeating: Set<_ReadKey>(), count: rows.count)
        for resource in select.embeddedResources {
            let relationship = try relations.relationship(from: table, for: resource)
            let values = try await self.values(of: resource, by: relationship, for: rows)
            // Written once for every row without a related row (a spread's keys are read from the relations).
            let none = try noRow(of: resource, by: relationship)
            for index in rows.indices {
                let value = values[index]
                reads[index].formUnion(value.reads)
                if !resource.keepsParent(withRelatedRow: value.object != nil) { kept[index] = false }
                embedded[index][resource.key] = value.object ?? none
            }
        }
        return rows.indices.map { index in
            guard kept[index] else { return _Embedding(object: nil, reads: reads[index]) }
            let object = _RowObject.write(
                members: rows[index].members, select: select, columnOrder: columnOrder, embedded: embedded[index])
            return _Embedding(object: object, reads: reads[index])
        }
    }

    /// What `resource` embeds in each row: an object, or an array of at least one object; no object when the
    /// row has no related row. Its reads are the lookup of the row's join value and every related row it
    /// matched (those the resource's window leaves out too, since a change to one can bring it in), with
    /// their own reads.
    private func values(
        of resource: EmbeddedResource, by relationship: LiveRelations.Relationship, for rows: [_EmbeddedRow]
    ) async throws -> [_Embedding] {
        let target = relationship.target.name
        let parentValues = rows.map { $0.values[relationship.parentColumn] ?? .null }
        let distinct = Array(Set(parentValues.filter { $0 != .null }))
        let related =
            distinct.isEmpty
            ? []
            : try await relationship.target.fetch(relationship.targetColumn, distinct, resource.parameters)
        let nested = try await embeddings(of: related, select: resource.select, table: target)
        var byValue: [QueryValue: [Int]] = [:]
        for (index, row) in related.enumerated() {
            guard let value = row.values[relationship.targetColumn], value != .null else { continue }
            byValue[value, default: []].append(index)
        }
        let (offset, limit) = try window(of: resource)
        return parentValues.map { value in
            guard value != .null else { return _Embedding(object: nil, reads: []) }
            let matched = byValue[value] ?? []
            var reads: Set<_ReadKey> = [.lookup(table: target, column: relationship.targetColumn, value: value)]
            for index in matched {
                reads.insert(.row(table: target, id: related[index].id))
                reads.formUnion(nested[index].reads)
            }
            let matches = matched.compactMap { nested[$0].object }.dropFirst(offset).prefix(limit)
            guard let first = matches.first else { return _Embedding(object: nil, reads: reads) }
            let object: Data
            switch (relationship.isToOne, resource.isSpread) {
            case (true, false): object = first
            case (true, true): object = first.dropFirst().dropLast()
            case (false, false):
                object = Data("[".utf8) + Data(matches.joined(separator: Data(",".utf8))) + Data("]".utf8)
            case (false, true): object = Self.spread(Array(matches))
            }
            return _Embedding(object: object, reads: reads)
        }
    }

    /// What `resource` embeds in a row that has no related row: `null` or `[]`; spread, each key it spreads
    /// with `null` (to-one) or `[]` (to-many).
    private func noRow(
        of resource: EmbeddedResource, by relationship: LiveRelations.Relationship
    ) throws(PostgRESTError) -> Data {
        let empty = relationship.isToOne ? "null" : "[]"
        guard resource.isSpread else { return Data(empty.utf8) }
        let keys = try spreadKeys(of: resource.select, table: relationship.target)
        return Data(keys.map { PostgRESTError.quoted($0) + ":" + empty }.joined(separator: ",").utf8)
    }

    /// The keys `select` writes for rows of `table`, spreads flattened.
    private func spreadKeys(of select: SelectList, table: _EmbeddableTable) throws(PostgRESTError) -> [String] {
        var keys: [String] = []
        for item in select.items {
            switch item {
            case .all: keys += table.columns
            case .column(let column): keys.append(column.key)
            case .embedded(let resource) where resource.isSpread:
                keys += try spreadKeys(
                    of: resource.select, table: relations.relationship(from: table.name, for: resource).target)
            case .embedded(let resource): keys.append(resource.key)
            }
        }
        return keys
    }

    /// The members a to-many spread writes: each key of the children's `objects`, with the array of its values
    /// in the children's order (`"title":["a","b"]`), as PostgREST 13 spreads a to-many relationship.
    private static func spread(_ objects: [Data]) -> Data {
        let rows = objects.map(_JSONMembers.of)
        let keys = rows.first?.map(\.key) ?? []
        let members = keys.map { key in
            let values = rows.map { row in row.first { $0.key == key }?.value ?? Data("null".utf8) }
            return PostgRESTError.quoted(key) + ":["
                + values.map { String(decoding: $0, as: UTF8.self) }
                .joined(separator: ",") + "]"
        }
        return Data(members.joined(separator: ",").utf8)
    }

    /// An embedded resource's `offset` and `limit`, per parent row.
    ///
    /// - Throws: `PGRST100` when one is not a number of 0 or more.
    private func window(of resource: EmbeddedResource) throws(PostgRESTError) -> (offset: Int, limit: Int) {
        func number(_ text: String?, _ name: String) throws(PostgRESTError) -> Int? {
            guard let text else { return nil }
            guard let value = Int(text), value >= 0 else {
                throw .badParameter("\(resource.key).\(name) must be a number of 0 or more, not \(text)")
            }
            return value
        }
        return (
            try number(resource.parameters.offset, "offset") ?? 0,
            try number(resource.parameters.limit, "limit") ?? .max
        )
    }
}
