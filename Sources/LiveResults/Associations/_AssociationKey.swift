/// A key of an association, its type erased.
///
/// `@unchecked Sendable` is sound because the only initializer takes a `Hashable & Sendable` value:
/// `AnyHashable` merely boxes that value, immutably, so the box is as sendable as the key it holds.
/// (`AnyHashable` itself is not `Sendable` because it can box anything.)
@usableFromInline struct _AssociationKey: Hashable, @unchecked Sendable {
    @usableFromInline let base: AnyHashable

    @inlinable init<Key: Hashable & Sendable>(_ key: Key) {
        base = AnyHashable(key)
    }

    @usableFromInline
    init(base: AnyHashable) {
        self.base = base
    }
}
