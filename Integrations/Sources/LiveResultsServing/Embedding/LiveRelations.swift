import Foundation
import LiveResults

/// The tables a live-queries route may embed with `select=`, and the foreign keys between them: what
/// PostgREST reads from its schema cache, declared.
///
/// Each foreign key makes two relationships, as in PostgREST: from its table, the referenced table is
/// embedded as one object or `null` (many-to-one); from the referenced table, the referencing table is
/// embedded as an array (one-to-many).
///
/// ```swift
/// var relations = LiveRelations()
/// relations.addTable("todos", source: todos)
/// relations.addTable("people", source: people)
/// relations.addForeignKey(from: "todos", column: "assignee_id", to: "people")   // references people.id
/// router.addLiveQueries(todos, at: "todos", filters: […], orders: […], relations: relations)
/// // GET /todos?select=id,title,assignee:people(id,name)
/// // GET /people?select=name,todos(title,priority)&todos.order=priority.desc&todos.limit=3
/// ```
///
/// An embedded table is read from its source when a request asks for it, with its own filters, order, limit
/// and offset (`todos.priority=gte.2`, `todos.order=…`), to any depth; `!inner` keeps only the rows that
/// have a related row after those filters.
public struct LiveRelations: Sendable {
    /// A foreign key: `table.column` references `referenced.referencedColumn`.
    struct ForeignKey: Sendable, Hashable {
        let table: String
        let column: String
        let referenced: String
        let referencedColumn: String
    }

    /// A relationship from one table, resolved: the rows of `target` whose `targetColumn` equals the parent's
    /// `parentColumn`.
    struct Relationship: Sendable {
        let target: _EmbeddableTable
        let parentColumn: String
        let targetColumn: String
        /// Many-to-one: one object or `null`; otherwise an array.
        let isToOne: Bool
    }

    private(set) var tables: [String: _EmbeddableTable] = [:]
    private(set) var foreignKeys: [ForeignKey] = []

    /// No tables and no relationships.
    ///
    /// - Complexity: O(1).
    public init() {}

    /// Declares a table, named as requests name it, whose rows `source` fetches.
    ///
    /// - Complexity: O(*c*) for *c* columns.
    public mutating func addTable<Source: QueryableSource>(_ name: String, source: Source)
    where Source.Entity: Codable {
        tables[name] = _EmbeddableTable(name: name, source: source)
    }

    /// Declares that `table.column` references `referenced.referencedColumn` (its id by default).
    ///
    /// - Precondition: Both tables are declared, with those columns.
    /// - Complexity: O(1).
    public mutating func addForeignKey(
        from table: String, column: String, to referenced: String, column referencedColumn: String = "id"
    ) {
        precondition(
            tables[table]?.columns.contains(column) == true, "\(table).\(column) is not a declared table's column")
        precondition(
            tables[referenced]?.columns.contains(referencedColumn) == true,
            "\(referenced).\(referencedColumn) is not a declared table's column")
        foreignKeys.append(
            ForeignKey(table: table, column: column, referenced: referenced, referencedColumn: referencedColumn))
    }

    /// The relationships from `table` to the table named `name`: the foreign keys either way between them,
    /// narrowed by `hint` (a foreign key's column) when given.
    func relationships(from table: String, to name: String, hint: String?) -> [Relationship] {
        guard let target = tables[name] else { return [] }
        var found: [Relationship] = []
        for key in foreignKeys {
            if key.table == table, key.referenced == name, hint == nil || hint == key.column {
                found.append(
                    Relationship(
                        target: target, parentColumn: key.column, targetColumn: key.referencedColumn, isToOne: true))
            }
            if key.referenced == table, key.table == name, hint == nil || hint == key.column {
                found.append(
                    Relationship(
                        target: target, parentColumn: key.referencedColumn, targetColumn: key.column, isToOne: false))
            }
        }
        return found
    }

    /// The JSON object of each of `rows`, a table's rows in order, with what `select` embeds: each embedded
    /// table read once per level, from its source, with the embedded resource's filters, order, limit and offset.
    ///
    /// - Parameters:
    ///   - rows: The rows of `table`.
    ///   - select: What each object holds (checked already: see `PostgRESTQuery.validate(for:relations:)`).
    ///   - table: The rows' table, declared here.
    ///   - encoder: Encodes the rows and the embedded rows.
    /// - Returns: Each row's object, in order; `nil` for a row that an `!inner` resource leaves out.
    /// - Throws: ``PostgRESTError`` for a relationship that is not declared; a source's fetch error.
    /// - Complexity: One read of each embedded table per level, plus O(*r* log *r*) to order the *r* rows read.
    public func objects<Entity: QueryableEntity & Encodable>(
        of rows: some Sequence<Entity>, select: SelectList, table: String, encoder: JSONEncoder = JSONEncoder()
    ) async throws -> [Data?] {
        let rows = try rows.map { try _EmbeddedRow($0, encoder: encoder) }
        return try await _Embedder(relations: self).objects(of: rows, select: select, table: table)
    }

    /// The one relationship `resource` names from `table`.
    ///
    /// - Throws: `PGRST200` when there is none, `PGRST201` when there are several (a hint picks one).
    func relationship(from table: String, for resource: EmbeddedResource) throws(PostgRESTError) -> Relationship {
        let found = relationships(from: table, to: resource.relation, hint: resource.hint)
        guard let first = found.first else {
            throw .noRelationship(between: table, and: resource.relation, hint: resource.hint)
        }
        guard found.count == 1 else { throw .ambiguousRelationship(between: table, and: resource.relation) }
        return first
    }
}
