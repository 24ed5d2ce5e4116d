import Foundation
import LiveResultsExampleKit
import Synchronization

/// An in-memory store that calls `watcher` before each write, to see what a list shows while it writes.
final class WriteWatchingStore: KeyValueStore {
    private let base = InMemoryKeyValueStore()
    private let watcher = Mutex<(@Sendable () -> Void)?>(nil)

    /// Calls `body` before each write from now on.
    func beforeEachWrite(_ body: @escaping @Sendable () -> Void) {
        watcher.withLock { $0 = body }
    }

    var location: String { base.location }

    func keys(withPrefix prefix: String) -> [String] { base.keys(withPrefix: prefix) }

    func hasValue(forKey key: String) -> Bool { base.hasValue(forKey: key) }

    func data(forKey key: String) -> Data? { base.data(forKey: key) }

    func set(_ data: Data, forKey key: String) {
        watch()
        base.set(data, forKey: key)
    }

    func setValues(_ values: [String: Data]) {
        watch()
        base.setValues(values)
    }

    func removeValue(forKey key: String) {
        watch()
        base.removeValue(forKey: key)
    }

    private func watch() {
        watcher.withLock { $0 }?()
    }
}
