import Foundation

/// A normalised live query over a ``QueryableEntity``: the filters its results satisfy (ANDed), their order,
/// and the column that names their sections.
///
/// ```swift
/// let urgent = try LiveQuery<Todo>(
///     filters: [.equal("project", "home"), LiveQueryFilter(column: "priority", condition: .lessThan(.integer(3)))],
///     order: [LiveQueryOrdering(column: "priority")], sectionedBy: "project")
/// urgent.key   // "order=priority.asc,id.asc&priority=lt.3&project=eq.\"home\"&section=project"
/// ```
///
/// Two queries that ask for the same results are equal and have the same ``key``, whatever order their filters
/// came in: filters are sorted, an `in` list is sorted without repeats, a filter given twice counts once, and
/// the order ends with the entity's ``QueryableEntity/idColumn`` ascending when it does not name it (and stops
/// there: the id orders completely). So the order is total, and every process orders the same rows alike.
public struct LiveQuery<Entity: QueryableEntity>: Hashable, Sendable {
    /// The filters, sorted; an entity is in the results when it satisfies all of them.
    public let filters: [LiveQueryFilter]
    /// The order, ending with the id column.
    public let order: [LiveQueryOrdering]
    /// The text column whose values name the sections; `nil` for one section.
    public let sectionColumn: String?
    /// The query's normalised text: equal for equal queries, different otherwise.
    public let key: String
    @usableFromInline let predicates: [Predicate]

    /// A filter as an entity is tested against it: the column's reader, not the whole column, so that testing
    /// copies one closure.
    @usableFromInline struct Predicate: Sendable {
        @usableFromInline let value: @Sendable (Entity) -> QueryValue
        @usableFromInline let condition: LiveQueryCondition
    }

    /// A query, checked against the entity's columns and normalised.
    ///
    /// - Parameters:
    ///   - filters: The conditions, ANDed.
    ///   - order: The order; the id column ascending ends it unless it names the id.
    ///   - sectionColumn: A text column that names the sections, or `nil`.
    /// - Throws: ``LiveQueryError`` naming the column that the entity does not declare, whose kind does not
    ///   match a filter's values, that has no order but orders the query, or that cannot name sections (not
    ///   text).
    /// - Complexity: O(*f* log *f* + *v* log *v*) for *f* filters naming *v* values.
    public init(
        filters: [LiveQueryFilter] = [], order: [LiveQueryOrdering] = [], sectionedBy sectionColumn: String? = nil
    ) throws(LiveQueryError) {
        var predicates: [Predicate] = []
        var normalised: Set<LiveQueryFilter> = []
        for filter in filters {
            let column = try Self.column(filter.column)
            let condition = try Self.normalised(filter.condition, for: column)
            if normalised.insert(LiveQueryFilter(column: filter.column, condition: condition)).inserted {
                predicates.append(Predicate(value: column._value, condition: condition))
            }
        }
        self.filters = normalised.sorted { $0.description < $1.description }
        self.order = try Self.normalised(order)
        if let sectionColumn, try Self.column(sectionColumn).sectionNameKeyPath == nil {
            throw LiveQueryError(parameter: sectionColumn, problem: "is not a text column: it cannot name sections")
        }
        self.sectionColumn = sectionColumn
        self.predicates = predicates
        var parts = self.filters.map(\.description)
        parts.append("order=" + self.order.map(\.description).joined(separator: ","))
        if let sectionColumn { parts.append("section=" + sectionColumn) }
        self.key = parts.sorted().joined(separator: "&")
    }

    /// Whether `entity` is in the results: it satisfies every filter.
    ///
    /// - Complexity: O(*f*) for *f* filters (an `in` list of *k* values: O(*k*)).
    @inlinable public func isIncluded(_ entity: Entity) -> Bool {
        Self.satisfies(predicates, entity)
    }

    /// ``isIncluded(_:)`` as a closure that holds the filters alone, not the query.
    @inlinable var _inclusion: @Sendable (Entity) -> Bool {
        guard !predicates.isEmpty else { return { _ in true } }
        let predicates = predicates
        return { entity in Self.satisfies(predicates, entity) }
    }

    /// Whether `entity` satisfies every one of `predicates`.
    @inlinable static func satisfies(_ predicates: [Predicate], _ entity: Entity) -> Bool {
        for index in predicates.indices {
            let predicate = predicates[index]
            guard predicate.condition.isSatisfied(by: predicate.value(entity)) else { return false }
        }
        return true
    }

    /// The query's order as Foundation sort descriptors, for a `FetchedResultsController`.
    ///
    /// - Complexity: O(*o* *c*) for *o* orderings of *c* columns.
    public var sortDescriptors: [SortDescriptor<Entity>] {
        order.compactMap { ordering in
            Entity.queryColumn(named: ordering.column)?.sortDescriptor?(ordering.descending ? .reverse : .forward)
        }
    }

    /// The key path of the section column, for a `FetchedResultsController`.
    ///
    /// - Complexity: O(*c*) for *c* columns.
    public var sectionNameKeyPath: (KeyPath<Entity, String> & Sendable)? {
        sectionColumn.flatMap { Entity.queryColumn(named: $0)?.sectionNameKeyPath }
    }

    /// A query with `conditions` ANDed to this one's filters (row-level access, for instance).
    ///
    /// - Throws: ``LiveQueryError`` as ``init(filters:order:sectionedBy:)``.
    /// - Complexity: As ``init(filters:order:sectionedBy:)``.
    public func adding(_ conditions: [LiveQueryFilter]) throws(LiveQueryError) -> LiveQuery {
        guard !conditions.isEmpty else { return self }
        return try LiveQuery(filters: filters + conditions, order: order, sectionedBy: sectionColumn)
    }

    /// Queries are equal when their keys are.
    ///
    /// - Complexity: O(1).
    public static func == (lhs: LiveQuery, rhs: LiveQuery) -> Bool { lhs.key == rhs.key }

    /// Hashes the key.
    ///
    /// - Complexity: O(1).
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    // MARK: Normalising

    private static func column(_ name: String) throws(LiveQueryError) -> QueryColumn<Entity> {
        guard let column = Entity.queryColumn(named: name) else {
            throw LiveQueryError(parameter: name, problem: "is not a column")
        }
        return column
    }

    /// The condition with its values checked against the column's kind, and an `in` or `not.in` list sorted without
    /// repeats.
    private static func normalised(
        _ condition: LiveQueryCondition, for column: QueryColumn<Entity>
    ) throws(LiveQueryError) -> LiveQueryCondition {
        for value in condition.values where value.kind != column.kind {
            throw LiveQueryError(
                parameter: column.name, problem: "holds \(column.kind.rawValue) values, not \(value)")
        }
        func sorted(_ values: [QueryValue]) -> [QueryValue] {
            var seen: Set<QueryValue> = []
            return values.filter { seen.insert($0).inserted }.sorted { $0.compare($1) ?? 0 < 0 }
        }
        switch condition {
        case .in(let values): return .in(sorted(values))
        case .notIn(let values): return .notIn(sorted(values))
        default: return condition
        }
    }

    /// The order with each column once (the first time it is named) and the id column ending it.
    private static func normalised(_ order: [LiveQueryOrdering]) throws(LiveQueryError) -> [LiveQueryOrdering] {
        var result: [LiveQueryOrdering] = []
        var named: Set<String> = []
        for ordering in order where named.insert(ordering.column).inserted {
            guard try column(ordering.column).sortDescriptor != nil else {
                throw LiveQueryError(parameter: ordering.column, problem: "has no order")
            }
            result.append(ordering)
            // The id orders completely: a column after it changes nothing.
            if ordering.column == Entity.idColumn { return result }
        }
        guard try column(Entity.idColumn).sortDescriptor != nil else {
            throw LiveQueryError(parameter: Entity.idColumn, problem: "has no order")
        }
        return result + [LiveQueryOrdering(column: Entity.idColumn)]
    }
}

extension LiveQuery: CustomStringConvertible {
    /// The ``key``.
    ///
    /// - Complexity: O(1).
    public var description: String { key }
}
