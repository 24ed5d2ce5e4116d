/// Reads a stored property of a struct at its byte offset instead of through its key path.
///
/// Applying a `KeyPath` goes through the runtime (`swift_getAtKeyPath`): about 35 ns for an `Int` and
/// 65 ns for a `String` on Linux, which made key path reads a tenth of a fetch. A key path to a stored
/// property of a struct, however nested, has a fixed offset (`MemoryLayout.offset(of:)`), and reading
/// there costs what a field access costs. Key paths through a class, a computed property or an optional
/// chain have no offset and keep the runtime path.
@usableFromInline enum _FieldAccess {
    /// The value at `offset`, which must be `MemoryLayout<Root>.offset(of:)` of a key path to `Value`.
    @inlinable @inline(__always)
    static func read<Root, Value>(_ root: Root, at offset: Int, as _: Value.Type) -> Value {
        withUnsafePointer(to: root) {
            UnsafeRawPointer($0).advanced(by: offset).assumingMemoryBound(to: Value.self).pointee
        }
    }

    /// A function that reads `keyPath`: at its offset where it has one, through the key path otherwise.
    @inlinable
    static func reader<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> @Sendable (Root) -> Value {
        if let offset = MemoryLayout<Root>.offset(of: keyPath) {
            return { read($0, at: offset, as: Value.self) }
        }
        // Key paths are immutable; the callers pass `Sendable` ones.
        nonisolated(unsafe) let keyPath = keyPath
        return { $0[keyPath: keyPath] }
    }
}
