import Foundation

extension _EntityOrdering {
    /// Compiles Foundation sort descriptors into one comparison that gives the same results.
    ///
    /// `SortDescriptor.compare` goes through Foundation's type-erased comparison on every call (about
    /// ten times slower than a closure on Linux). A descriptor on a key path to a common `Comparable`
    /// type, or to an optional of one, becomes a typed key-path comparison; a `String` key path with an
    /// explicit `String.StandardComparator` keeps that comparator; anything else calls the descriptor.
    @inlinable static func comparison(of descriptors: [SortDescriptor<Entity>])
        -> @Sendable (Entity, Entity) -> ComparisonResult
    {
        let compiled = descriptors.map(compile)
        switch compiled.count {
        case 0: return { _, _ in .orderedSame }
        case 1: return compiled[0]
        default:
            return { lhs, rhs in
                for compare in compiled {
                    let result = compare(lhs, rhs)
                    if result != .orderedSame { return result }
                }
                return .orderedSame
            }
        }
    }

    @inlinable static func compile(_ descriptor: SortDescriptor<Entity>)
        -> @Sendable (Entity, Entity) -> ComparisonResult
    {
        let forward =
            descriptor.stringComparator.map { stringComparison(descriptor.keyPath, $0) }
            ?? typedComparison(descriptor.keyPath)
        guard let forward else { return { descriptor.compare($0, $1) } }
        guard descriptor.order == .reverse else { return forward }
        return { forward($1, $0) }
    }

    @inlinable static func stringComparison(
        _ keyPath: PartialKeyPath<Entity>?,
        _ comparator: String.StandardComparator
    ) -> (@Sendable (Entity, Entity) -> ComparisonResult)? {
        guard let typed = keyPath as? KeyPath<Entity, String> else { return nil }
        // Key paths are immutable; this one comes from a `Sendable` sort descriptor.
        nonisolated(unsafe) let keyPath = typed
        var comparator = comparator
        comparator.order = .forward
        let forwardComparator = comparator
        return { forwardComparator.compare($0[keyPath: keyPath], $1[keyPath: keyPath]) }
    }

    @inlinable static func typedComparison(_ keyPath: PartialKeyPath<Entity>?) -> (
        @Sendable (Entity, Entity) -> ComparisonResult
    )? {
        guard let keyPath else { return nil }
        let attempts: [(PartialKeyPath<Entity>) -> (@Sendable (Entity, Entity) -> ComparisonResult)?] = [
            { comparison($0, Int.self) }, { comparison($0, Double.self) }, { comparison($0, String.self) },
            { comparison($0, Date.self) }, { comparison($0, Int64.self) }, { comparison($0, Int32.self) },
            { comparison($0, Int16.self) }, { comparison($0, Int8.self) }, { comparison($0, UInt.self) },
            { comparison($0, UInt64.self) }, { comparison($0, UInt32.self) }, { comparison($0, UInt16.self) },
            { comparison($0, UInt8.self) }, { comparison($0, Float.self) }, { comparison($0, UUID.self) },
        ]
        for attempt in attempts {
            if let compare = attempt(keyPath) { return compare }
        }
        return nil
    }

    /// A comparison of `Value` keys, or of optional ones (`nil` first), like Foundation's.
    @inlinable static func comparison<Value: Comparable & Sendable>(
        _ keyPath: PartialKeyPath<Entity>,
        _: Value.Type
    ) -> (@Sendable (Entity, Entity) -> ComparisonResult)? {
        if let typed = keyPath as? KeyPath<Entity, Value> {
            // Key paths are immutable; this one comes from a `Sendable` sort descriptor.
            nonisolated(unsafe) let keyPath = typed
            return { compareValues($0[keyPath: keyPath], $1[keyPath: keyPath]) }
        }
        if let typed = keyPath as? KeyPath<Entity, Value?> {
            nonisolated(unsafe) let keyPath = typed
            return { lhs, rhs in
                switch (lhs[keyPath: keyPath], rhs[keyPath: keyPath]) {
                case (nil, nil): .orderedSame
                case (nil, _): .orderedAscending
                case (_, nil): .orderedDescending
                case (let left?, let right?): compareValues(left, right)
                }
            }
        }
        return nil
    }

    @inline(__always)
    @inlinable static func compareValues<Value: Comparable & Sendable>(_ lhs: Value, _ rhs: Value) -> ComparisonResult {
        lhs < rhs ? .orderedAscending : (rhs < lhs ? .orderedDescending : .orderedSame)
    }
}
