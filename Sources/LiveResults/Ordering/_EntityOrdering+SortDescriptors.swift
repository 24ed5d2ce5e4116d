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
        let read = _FieldAccess.reader(typed)
        var comparator = comparator
        comparator.order = .forward
        let forwardComparator = comparator
        return { forwardComparator.compare(read($0), read($1)) }
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
            // Read at the property's offset where it has one: see `_FieldAccess`.
            if let offset = MemoryLayout<Entity>.offset(of: typed) {
                return {
                    compareValues(
                        _FieldAccess.read($0, at: offset, as: Value.self),
                        _FieldAccess.read($1, at: offset, as: Value.self))
                }
            }
            // Key paths are immutable; this one comes from a `Sendable` sort descriptor.
            nonisolated(unsafe) let keyPath = typed
            return { compareValues($0[keyPath: keyPath], $1[keyPath: keyPath]) }
        }
        if let typed = keyPath as? KeyPath<Entity, Value?> {
            let read = _FieldAccess.reader(typed)
            return { lhs, rhs in
                switch (read(lhs), read(rhs)) {
                case (nil, nil): .orderedSame
                case (nil, _): .orderedAscending
                case (_, nil): .orderedDescending
                case (let left?, let right?): compareValues(left, right)
                }
            }
        }
        return nil
    }

    /// `<` in both directions, with one exception: a value unequal to itself (a floating-point NaN, or a date
    /// made of one) sorts after every other value, and equal to another such value, as PostgreSQL sorts NaN.
    /// `<` alone finds NaN equal to every number, which is no order: a tree sorted by it loses entities.
    @inline(__always)
    @inlinable static func compareValues<Value: Comparable & Sendable>(_ lhs: Value, _ rhs: Value) -> ComparisonResult {
        if lhs < rhs { return .orderedAscending }
        if rhs < lhs { return .orderedDescending }
        // Only reached by ties. For integers the check folds away once specialized; a string is compared with
        // itself, which its identical storage answers at once.
        let (lhsIsNaN, rhsIsNaN) = (lhs != lhs, rhs != rhs)
        if lhsIsNaN == rhsIsNaN { return .orderedSame }
        return lhsIsNaN ? .orderedDescending : .orderedAscending
    }
}

extension _EntityOrdering {
    /// The compiled sort of Foundation descriptors: their comparison, and an abbreviation of the first
    /// descriptor's key when it is a number or a date (exact when it is the only descriptor), packed with
    /// the second's when the first is an integer and the second a number or a date too (then exact where
    /// both fit, when they are the only two).
    @inlinable
    static func rule(of descriptors: [SortDescriptor<Entity>]) -> _SortRule<Entity> {
        let first = descriptors.first.flatMap(abbreviatedField)
        // A first key that is a floating-point number or a date fills its code's 64 bits and more: packed,
        // it would lose its last bits and leave the second key none.
        let second =
            first.map(\.kind.isInteger) == true && descriptors.count > 1 ? abbreviatedField(descriptors[1]) : nil
        return _SortRule(
            compare: comparison(of: descriptors),
            abbreviation: descriptors.first.flatMap(abbreviation),
            abbreviationIsExact: descriptors.count == 1,
            abbreviatedField: first,
            pairedField: second,
            pairIsExact: descriptors.count == 2
        )
    }

    /// The field of a descriptor on a stored number or date, which ``_AbbreviatedField`` abbreviates.
    @inlinable
    static func abbreviatedField(_ descriptor: SortDescriptor<Entity>) -> _AbbreviatedField? {
        guard descriptor.stringComparator == nil, let keyPath = descriptor.keyPath else { return nil }
        return _AbbreviatedField.field(of: keyPath, reversed: descriptor.order == .reverse)
    }

    @inlinable
    static func abbreviation(of descriptor: SortDescriptor<Entity>) -> (@Sendable (Entity) -> UInt64)? {
        guard descriptor.stringComparator == nil, let keyPath = descriptor.keyPath else { return nil }
        let attempts: [(PartialKeyPath<Entity>) -> (@Sendable (Entity) -> UInt64)?] = [
            { abbreviation($0, Int.self) { _Abbreviation.signed(Int64($0)) } },
            { abbreviation($0, Double.self) { _Abbreviation.floatingPoint($0) } },
            { abbreviation($0, Date.self) { _Abbreviation.floatingPoint($0.timeIntervalSinceReferenceDate) } },
            { abbreviation($0, Int64.self) { _Abbreviation.signed($0) } },
            { abbreviation($0, Int32.self) { _Abbreviation.signed(Int64($0)) } },
            { abbreviation($0, Int16.self) { _Abbreviation.signed(Int64($0)) } },
            { abbreviation($0, Int8.self) { _Abbreviation.signed(Int64($0)) } },
            { abbreviation($0, UInt.self) { UInt64($0) } },
            { abbreviation($0, UInt64.self) { $0 } },
            { abbreviation($0, UInt32.self) { UInt64($0) } },
            { abbreviation($0, UInt16.self) { UInt64($0) } },
            { abbreviation($0, UInt8.self) { UInt64($0) } },
            { abbreviation($0, Float.self) { _Abbreviation.floatingPoint(Double($0)) } },
        ]
        guard let forward = attempts.lazy.compactMap({ $0(keyPath) }).first else { return nil }
        guard descriptor.order == .reverse else { return forward }
        return { ~forward($0) }
    }

    @inlinable
    static func abbreviation<Value: Sendable>(
        _ keyPath: PartialKeyPath<Entity>,
        _: Value.Type,
        _ map: @escaping @Sendable (Value) -> UInt64
    ) -> (@Sendable (Entity) -> UInt64)? {
        guard let typed = keyPath as? KeyPath<Entity, Value> else { return nil }
        if let offset = MemoryLayout<Entity>.offset(of: typed) {
            return { map(_FieldAccess.read($0, at: offset, as: Value.self)) }
        }
        // Key paths are immutable; this one comes from a `Sendable` sort descriptor.
        nonisolated(unsafe) let keyPath = typed
        return { map($0[keyPath: keyPath]) }
    }
}
