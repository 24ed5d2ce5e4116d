import Foundation
import Synchronization

/// A ``KeyValueStore`` in memory, for tests and previews. Its values last as long as it does.
///
/// ```swift
/// let store = InMemoryKeyValueStore(["todo.1": Data("{}".utf8)])
/// ```
public final class InMemoryKeyValueStore: KeyValueStore {
    private let values: Mutex<[String: Data]>

    /// Creates a store holding `values`.
    ///
    /// - Parameter values: The initial contents.
    public init(_ values: [String: Data] = [:]) {
        self.values = Mutex(values)
    }

    /// Always `"memory"`.
    public var location: String { "memory" }

    /// All values, by key.
    ///
    /// - Complexity: O(1).
    public var contents: [String: Data] {
        values.withLock { $0 }
    }

    public func keys(withPrefix prefix: String) -> [String] {
        values.withLock { $0.keys.filter { $0.hasPrefix(prefix) } }.sorted()
    }

    public func hasValue(forKey key: String) -> Bool {
        values.withLock { $0[key] != nil }
    }

    public func data(forKey key: String) -> Data? {
        values.withLock { $0[key] }
    }

    public func set(_ data: Data, forKey key: String) {
        values.withLock { $0[key] = data }
    }

    public func setValues(_ values: [String: Data]) {
        self.values.withLock { $0.merge(values) { _, new in new } }
    }

    public func removeValue(forKey key: String) {
        _ = values.withLock { $0.removeValue(forKey: key) }
    }
}
