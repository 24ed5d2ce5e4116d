import Foundation
import LiveResultsExampleKit
import Synchronization

/// An in-memory store that counts its writes, to tell one write from many.
final class CountingStore: KeyValueStore {
    private let base = InMemoryKeyValueStore()
    private let count = Mutex(0)

    /// The writes so far: each `set`, `setValues` and `removeValue` counts one.
    var writes: Int { count.withLock { $0 } }

    var location: String { base.location }

    func keys(withPrefix prefix: String) -> [String] { base.keys(withPrefix: prefix) }

    func hasValue(forKey key: String) -> Bool { base.hasValue(forKey: key) }

    func data(forKey key: String) -> Data? { base.data(forKey: key) }

    func set(_ data: Data, forKey key: String) {
        count.withLock { $0 += 1 }
        base.set(data, forKey: key)
    }

    func setValues(_ values: [String: Data]) {
        count.withLock { $0 += 1 }
        base.setValues(values)
    }

    func removeValue(forKey key: String) {
        count.withLock { $0 += 1 }
        base.removeValue(forKey: key)
    }
}
