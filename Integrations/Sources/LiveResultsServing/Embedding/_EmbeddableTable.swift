import Foundation
import LiveResults

/// A table that `select=` may embed, its entity type erased: its columns, and a read of the rows related to
/// some parents, with an embedded resource's filters and order.
struct _EmbeddableTable: Sendable {
    let name: String
    /// The query columns, in the order the entity declares them (a table's order, for `*`).
    let columns: [String]
    /// The rows whose `column` is one of `values` and that `parameters`' filters select, in `parameters`' order
    /// (the id ascending ends it).
    let fetch:
        @Sendable (_ column: String, _ values: [QueryValue], _ parameters: EmbeddedParameters) async throws
            -> [_EmbeddedRow]
    /// Subscribes to the source's events, erased.
    let subscribe: @Sendable (_ receive: @escaping @Sendable ([_RelatedEvent]) -> Void) -> EventSubscription

    /// How many values one read of the source carries: a list of parents longer than that is read in parts.
    static let valuesPerRead = 1_000

    init<Source: QueryableSource>(name: String, source: Source) where Source.Entity: Codable {
        self.name = name
        columns = Source.Entity.queryColumns.map(\.name)
        let columns = Set(columns)
        fetch = { column, values, parameters in
            let query = try Self.query(of: Source.Entity.self, table: name, columns: columns, parameters: parameters)
            var entities: [Source.Entity] = []
            for start in stride(from: 0, to: values.count, by: Self.valuesPerRead) {
                let part = Array(values[start..<min(values.count, start + Self.valuesPerRead)])
                let joined = try query.adding([LiveQueryFilter(column: column, condition: .in(part))])
                entities += try await source.fetchDefinition(for: joined).request().filter(joined.isIncluded)
            }
            let encoder = JSONEncoder()
            return try entities.sorted(using: query.sortDescriptors).map { try _EmbeddedRow($0, encoder: encoder) }
        }
        subscribe = { receive in
            source.subscribe(EventSubscriber { events in receive(events.map(_RelatedEvent.init)) })
        }
    }

    /// The query of an embedded resource's filters and order, without its join or its window.
    ///
    /// - Throws: `PGRST100` for a filter or order that does not read (as the top-level query's).
    static func query<Entity: QueryableEntity>(
        of entity: Entity.Type, table: String, columns: Set<String>, parameters: EmbeddedParameters
    ) throws(PostgRESTError) -> LiveQuery<Entity> {
        var pairs = parameters.filters.map { ($0.column, $0.condition) }
        if let order = parameters.order { pairs.append(("order", order)) }
        do throws(LiveQueryError) {
            let rules = LiveQueryRules(filters: columns, orders: columns, maximumListLength: .max)
            return try LiveQueryRequest<Entity>(parameters: pairs, rules: rules).query
        } catch {
            throw PostgRESTError.badParameter(
                "\(table).\(error.description)", details: "the parameter \(table).\(error.parameter)")
        }
    }
}
