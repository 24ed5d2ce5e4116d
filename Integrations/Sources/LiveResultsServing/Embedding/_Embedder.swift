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
        guard let columnOrder = relations.tables[table]?.columns else {
            preconditionFailure("embedding from \(table), a table the relations do not declare")
        }
        var embedded = Array(repeating: [String: Data](), count: rows.count)
        var kept = Array(repeating: true, count: rows.count)
        for resource in select.embeddedResources {
            let relationship = try relations.relationship(from: table, for: resource)
            let values = try await self.values(of: resource, by: relationship, for: rows)
            for index in rows.indices {
                let value = values[index]
                if resource.join == .inner, value == nil { kept[index] = false }
                embedded[index][resource.key] = value ?? Data(relationship.isToOne ? "null".utf8 : "[]".utf8)
            }
        }
        return rows.indices.map { index in
            guard kept[index] else { return nil }
            return _RowObject.write(
                members: rows[index].members, select: select, columnOrder: columnOrder, embedded: embedded[index])
        }
    }

    /// What `resource` embeds in each row: an object, or an array of at least one object; `nil` when the row
    /// has no related row.
    private func values(
        of resource: EmbeddedResource, by relationship: LiveRelations.Relationship, for rows: [_EmbeddedRow]
    ) async throws -> [Data?] {
        let parentValues = rows.map { $0.values[relationship.parentColumn] ?? .null }
        let distinct = Array(Set(parentValues.filter { $0 != .null }))
        let related =
            distinct.isEmpty
            ? []
            : try await relationship.target.fetch(relationship.targetColumn, distinct, resource.parameters)
        let objects = try await self.objects(of: related, select: resource.select, table: relationship.target.name)
        var byValue: [QueryValue: [Data]] = [:]
        for (row, object) in zip(related, objects) {
            guard let object, let value = row.values[relationship.targetColumn] else { continue }
            byValue[value, default: []].append(object)
        }
        let (offset, limit) = try window(of: resource)
        return parentValues.map { value in
            let matches = (byValue[value] ?? []).dropFirst(offset).prefix(limit)
            guard let first = matches.first else { return nil }
            return relationship.isToOne
                ? first : Data("[".utf8) + Data(matches.joined(separator: Data(",".utf8))) + Data("]".utf8)
        }
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
