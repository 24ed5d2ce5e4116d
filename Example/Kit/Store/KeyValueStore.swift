import Foundation

/// A UserDefaults-style store of encoded values under string keys.
///
/// The example keeps each entity as one `Data` value under a key such as `"todo.3"`. Three
/// implementations ship with it:
///
/// - ``UserDefaultsKeyValueStore``: Foundation's `UserDefaults` with its own suite.
/// - ``FileKeyValueStore``: a property list file at a path you choose, written atomically.
/// - ``InMemoryKeyValueStore``: for tests.
///
/// A store may hold values that are not `Data` (written by hand or by another program):
/// ``data(forKey:)`` throws ``KeyValueStoreError/notData(key:found:)`` for them, and writes never
/// touch them.
public protocol KeyValueStore: Sendable {
    /// Where the values live, for messages (a suite name, a path, "memory").
    var location: String { get }

    /// The keys that start with `prefix`, in ascending order.
    ///
    /// - Complexity: O(*n* log *n*) for *n* keys in the store.
    func keys(withPrefix prefix: String) -> [String]

    /// Whether a value of any kind is stored under `key`.
    ///
    /// - Complexity: O(1).
    func hasValue(forKey key: String) -> Bool

    /// The data stored under `key`, or `nil` if there is none.
    ///
    /// - Throws: ``KeyValueStoreError/notData(key:found:)`` if the value there is not data.
    /// - Complexity: O(1).
    func data(forKey key: String) throws -> Data?

    /// Stores `data` under `key`, replacing any value, and makes it durable before returning.
    ///
    /// - Throws: ``KeyValueStoreError/writeFailed(location:reason:)`` if it could not be saved.
    /// - Complexity: O(1) in memory; the persistent stores also write their file.
    func set(_ data: Data, forKey key: String) throws

    /// Stores each value under its key, replacing any values there, in one write: the persistent
    /// stores save their file once, not once per value.
    ///
    /// - Throws: ``KeyValueStoreError/writeFailed(location:reason:)`` if they could not be saved; then
    ///   none of them is stored, except in ``UserDefaultsKeyValueStore``, which cannot take a write back.
    /// - Complexity: O(*k*) in memory for *k* values; the persistent stores also write their file, once.
    func setValues(_ values: [String: Data]) throws

    /// Removes the value under `key`, if any, and makes the removal durable before returning.
    ///
    /// - Throws: ``KeyValueStoreError/writeFailed(location:reason:)`` if it could not be saved.
    /// - Complexity: O(1) in memory; the persistent stores also write their file.
    func removeValue(forKey key: String) throws
}
