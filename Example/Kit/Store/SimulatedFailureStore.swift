import Foundation
import Synchronization

/// A ``KeyValueStore`` that passes everything to another store, except a write it was told to fail:
/// that one throws ``KeyValueStoreError/writeFailed(location:reason:)`` with the reason
/// ``simulatedReason`` and changes nothing, as a full disk or a lost connection would.
///
/// A ``TodoList`` keeps its store behind one, so that the interactive mode's `fail-next-write` and the
/// scripted demo can show an optimistic edit rolled back when its write really fails:
///
/// ```swift
/// let store = SimulatedFailureStore(InMemoryKeyValueStore())
/// store.failNextWrite()
/// try store.set(Data("x".utf8), forKey: "todo.1")   // throws: could not save to memory: simulated failure
/// try store.set(Data("x".utf8), forKey: "todo.1")   // saved
/// ```
public final class SimulatedFailureStore: KeyValueStore {
    /// The reason the failed write gives.
    public static let simulatedReason = "simulated failure"

    /// The store every read and every other write goes to.
    public let base: any KeyValueStore
    private let failsNextWrite = Mutex(false)

    /// Creates a store over `base` that fails no write until told to.
    public init(_ base: any KeyValueStore) {
        self.base = base
    }

    /// Makes the next write (`set`, `setValues` or `removeValue`) throw, whoever makes it; the one
    /// after succeeds again.
    public func failNextWrite() {
        failsNextWrite.withLock { $0 = true }
    }

    /// The location of ``base``.
    public var location: String { base.location }

    public func keys(withPrefix prefix: String) -> [String] { base.keys(withPrefix: prefix) }

    public func hasValue(forKey key: String) -> Bool { base.hasValue(forKey: key) }

    public func data(forKey key: String) throws -> Data? { try base.data(forKey: key) }

    public func set(_ data: Data, forKey key: String) throws {
        try checkWrite()
        try base.set(data, forKey: key)
    }

    public func setValues(_ values: [String: Data]) throws {
        try checkWrite()
        try base.setValues(values)
    }

    public func removeValue(forKey key: String) throws {
        try checkWrite()
        try base.removeValue(forKey: key)
    }

    /// Throws, once, if told to fail the next write.
    private func checkWrite() throws(KeyValueStoreError) {
        let fails = failsNextWrite.withLock { fails in
            defer { fails = false }
            return fails
        }
        if fails { throw .writeFailed(location: location, reason: Self.simulatedReason) }
    }
}
