import Foundation

/// The user's sort, compiled: a full comparison, plus, where the first sort key allows it, an
/// order-preserving abbreviation of that key to a `UInt64`, or of the first two keys packed (see
/// ``_PairAbbreviation``).
///
/// Comparing abbreviations is much cheaper than comparing entities through key paths, so the storage
/// keeps each entity's abbreviation beside its id and compares entities only when abbreviations tie.
@usableFromInline
struct _SortRule<Entity: FetchableEntity>: Sendable {
    /// The full comparison, without the insertion-order tie break.
    @usableFromInline let compare: @Sendable (Entity, Entity) -> ComparisonResult
    /// If `abbreviation(a) < abbreviation(b)` then `compare(a, b)` is `.orderedAscending`.
    @usableFromInline let abbreviation: (@Sendable (Entity) -> UInt64)?
    /// Whether equal abbreviations also mean `compare` finds the entities equal.
    @usableFromInline let abbreviationIsExact: Bool
    /// The field `abbreviation` reads, when it is a stored number or date: the same abbreviation,
    /// computed without calling the closure.
    @usableFromInline let abbreviatedField: _AbbreviatedField?
    /// The second sort key's field, when ``abbreviate(_:)`` packs it with the first (see
    /// ``_PairAbbreviation``): both keys are stored numbers or dates, the first an integer.
    @usableFromInline let pairedField: _AbbreviatedField?
    /// Whether a complete packed pair (``_PairAbbreviation/isComplete(_:)``) that ties also means
    /// `compare` finds the entities equal: the two keys are the whole sort.
    @usableFromInline let pairIsExact: Bool

    @usableFromInline
    init(
        compare: @escaping @Sendable (Entity, Entity) -> ComparisonResult,
        abbreviation: (@Sendable (Entity) -> UInt64)? = nil,
        abbreviationIsExact: Bool = false,
        abbreviatedField: _AbbreviatedField? = nil,
        pairedField: _AbbreviatedField? = nil,
        pairIsExact: Bool = false
    ) {
        self.compare = compare
        self.abbreviation = abbreviation
        self.abbreviationIsExact = abbreviation != nil && abbreviationIsExact
        self.abbreviatedField = abbreviation != nil ? abbreviatedField : nil
        self.pairedField = self.abbreviatedField != nil ? pairedField : nil
        self.pairIsExact = self.pairedField != nil && pairIsExact
    }

    /// The abbreviation of `entity`, or 0 when the rule has none.
    ///
    /// Always inlined: with a second field to read, the optimizer stopped inlining it, and a single-key
    /// sort paid the call and a copy of the entity on every insertion and removal.
    @inlinable @inline(__always)
    func abbreviate(_ entity: Entity) -> UInt64 {
        if let abbreviatedField {
            guard let pairedField else { return abbreviatedField.abbreviate(entity) }
            return _PairAbbreviation.pack(abbreviatedField.abbreviate(entity), pairedField.abbreviate(entity))
        }
        return abbreviation?(entity) ?? 0
    }

    /// Whether entities whose abbreviations are both `value` are equal under `compare`, so that only
    /// insertion order is left to compare.
    @inlinable
    func isExact(_ value: UInt64) -> Bool {
        abbreviationIsExact || (pairIsExact && _PairAbbreviation.isComplete(value))
    }
}

/// Order-preserving maps of numbers to `UInt64`.
@usableFromInline
enum _Abbreviation {
    @inlinable
    static func signed(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: value) ^ (1 << 63)
    }

    /// Negative numbers flip entirely, positive ones set the sign bit; -0.0 maps like 0.0. Every NaN maps
    /// like the positive quiet NaN, after +infinity: where the comparison puts it (see
    /// ``_EntityOrdering/compareValues(_:_:)``).
    @inlinable
    static func floatingPoint(_ value: Double) -> UInt64 {
        let bits = (value == 0 ? 0.0 : value.isNaN ? .nan : value).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }
}
