import Foundation

/// A column of a queryable entity: the name a live query gives it, and how an entity's value of it is read,
/// compared, ordered and, for text, used as a section name.
///
/// ```swift
/// extension Todo: QueryableEntity {
///     static let queryColumns: [QueryColumn<Todo>] = [
///         QueryColumn("id", \.id), QueryColumn("title", \.title),
///         QueryColumn("project", \.project), QueryColumn("priority", \.priority),
///     ]
/// }
/// ```
///
/// The name is the column's name in the database too: a ``QueryableSource`` writes it into SQL (quoted).
public struct QueryColumn<Entity>: Sendable {
    /// The column's name, in queries and in the database.
    public let name: String
    /// The kind of the column's values: how a query's text for it is read.
    public let kind: QueryValueKind
    /// Reads the value: at the property's offset where it has one (see `_FieldAccess`), as routing and filters do
    /// for every event.
    @usableFromInline let _value: @Sendable (Entity) -> QueryValue
    /// The column's order; `nil` for a column whose values have none (`Bool`).
    @usableFromInline let sortDescriptor: (@Sendable (SortOrder) -> SortDescriptor<Entity>)?
    @usableFromInline let sectionNameKeyPath: (KeyPath<Entity, String> & Sendable)?

    /// A column whose values are `keyPath`'s.
    ///
    /// - Complexity: O(1).
    @inlinable public init<Value: QueryValueConvertible & Comparable>(
        _ name: String, _ keyPath: KeyPath<Entity, Value> & Sendable
    ) {
        self.name = name
        self.kind = Value.queryValueKind
        let read = _FieldAccess.reader(keyPath)
        self._value = { read($0).queryValue }
        self.sortDescriptor = { SortDescriptor(keyPath, order: $0) }
        self.sectionNameKeyPath = nil
    }

    /// A column whose values are `keyPath`'s, `nil` being SQL's `NULL`.
    ///
    /// - Complexity: O(1).
    @inlinable public init<Value: QueryValueConvertible & Comparable>(
        _ name: String, _ keyPath: KeyPath<Entity, Value?> & Sendable
    ) {
        self.name = name
        self.kind = Value.queryValueKind
        let read = _FieldAccess.reader(keyPath)
        self._value = { read($0).queryValue }
        self.sortDescriptor = { SortDescriptor(keyPath, order: $0) }
        self.sectionNameKeyPath = nil
    }

    /// A column whose values have no order (`Bool`, `Bool?`): queries may filter on it, not order by it.
    ///
    /// - Complexity: O(1).
    @inlinable public init<Value: QueryValueConvertible>(_ name: String, _ keyPath: KeyPath<Entity, Value> & Sendable) {
        self.name = name
        self.kind = Value.queryValueKind
        let read = _FieldAccess.reader(keyPath)
        self._value = { read($0).queryValue }
        self.sortDescriptor = nil
        self.sectionNameKeyPath = nil
    }

    /// A text column, which can also name the sections of a query's results.
    ///
    /// It orders by `String`'s `<`, as its filters compare, so that every process orders alike whatever its
    /// locale.
    ///
    /// - Complexity: O(1).
    @inlinable public init(_ name: String, _ keyPath: KeyPath<Entity, String> & Sendable) {
        self.name = name
        self.kind = .text
        let read = _FieldAccess.reader(keyPath)
        self._value = { .text(read($0)) }
        self.sortDescriptor = { SortDescriptor(keyPath, order: $0) }
        self.sectionNameKeyPath = keyPath
    }

    /// The value of the column in `entity`.
    ///
    /// - Complexity: O(1), plus the key path's read.
    @inlinable public func value(of entity: Entity) -> QueryValue { _value(entity) }
}
