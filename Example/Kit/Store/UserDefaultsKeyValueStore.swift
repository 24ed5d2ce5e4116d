import Foundation
import Synchronization

/// A ``KeyValueStore`` backed by Foundation's `UserDefaults`, in a suite of its own.
///
/// On Linux, swift-corelibs-foundation keeps a suite in a property list file that survives restarts:
///
/// - a suite name such as `"LiveResultsExample"` lives in `$XDG_CONFIG_HOME/LiveResultsExample.plist`,
///   or `~/.config/LiveResultsExample.plist` when `XDG_CONFIG_HOME` is not set;
/// - an absolute path such as `"/tmp/demo/todos"` lives in `/tmp/demo/todos.plist`.
///
/// Missing folders are created on the first write, and writes from several processes are merged.
/// Every ``set(_:forKey:)``, ``setValues(_:)`` and ``removeValue(forKey:)`` synchronizes (once), so a
/// value is on disk when it returns.
///
/// `UserDefaults` on Linux treats a file it cannot parse as empty, so its next write would replace
/// every entry: this store refuses to open such a file instead. It also rewrites its file in place
/// rather than atomically, which ``FileKeyValueStore`` does not.
///
/// ```swift
/// let store = try UserDefaultsKeyValueStore(suiteName: "LiveResultsExample")
/// try store.set(Data("hello".utf8), forKey: "greeting")
/// ```
public final class UserDefaultsKeyValueStore: KeyValueStore {
    /// `UserDefaults` is not `Sendable` on Linux; the store uses it under a lock only.
    private let defaults: Mutex<UserDefaults>

    /// The suite's name, as given.
    public let suiteName: String

    /// Opens the suite `suiteName`, creating it on the first write.
    ///
    /// - Parameter suiteName: A name such as `"LiveResultsExample"`, or an absolute path without the
    ///   `.plist` extension.
    /// - Throws: ``KeyValueStoreError/unreadableFile(path:reason:)`` if the suite's file exists but
    ///   is not a property list dictionary (it is left untouched), or if Foundation rejects the name.
    public init(suiteName: String) throws {
        if let path = Self.filePath(ofSuite: suiteName) {
            _ = try _propertyListDictionary(at: URL(fileURLWithPath: path))
        }
        guard let defaults = UserDefaults(suiteName: suiteName) else {
            throw KeyValueStoreError.unreadableFile(path: suiteName, reason: "UserDefaults rejects this suite name")
        }
        self.defaults = Mutex(defaults)
        self.suiteName = suiteName
    }

    /// `UserDefaults suite "NAME" in FILE`, or `UserDefaults suite in FILE` for a path.
    public var location: String {
        let name = suiteName.hasPrefix("/") ? "" : " \"\(suiteName)\""
        return "UserDefaults suite\(name)" + (filePath.map { " in \($0)" } ?? "")
    }

    /// The file in which swift-corelibs-foundation keeps the suite, as observed with Swift 6 on Linux;
    /// `nil` on other platforms.
    public var filePath: String? {
        Self.filePath(ofSuite: suiteName)
    }

    private static func filePath(ofSuite suiteName: String) -> String? {
        #if os(Linux)
            if suiteName.hasPrefix("/") { return suiteName + ".plist" }
            let configuration = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            return (configuration ?? NSHomeDirectory() + "/.config") + "/" + suiteName + ".plist"
        #else
            return nil
        #endif
    }

    public func keys(withPrefix prefix: String) -> [String] {
        defaults.withLock { $0.dictionaryRepresentation().keys.filter { $0.hasPrefix(prefix) } }.sorted()
    }

    public func hasValue(forKey key: String) -> Bool {
        defaults.withLock { $0.object(forKey: key) != nil }
    }

    public func data(forKey key: String) throws -> Data? {
        try defaults.withLock { try _data(from: $0.object(forKey: key), forKey: key) }
    }

    public func set(_ data: Data, forKey key: String) throws {
        try write { $0.set(data, forKey: key) }
    }

    public func setValues(_ values: [String: Data]) throws {
        try write { defaults in
            for (key, data) in values {
                defaults.set(data, forKey: key)
            }
        }
    }

    public func removeValue(forKey key: String) throws {
        try write { $0.removeObject(forKey: key) }
    }

    /// Changes the defaults, then synchronizes them to disk.
    private func write(_ change: (UserDefaults) -> Void) throws {
        let saved = defaults.withLock { defaults in
            change(defaults)
            return defaults.synchronize()
        }
        guard saved else {
            throw KeyValueStoreError.writeFailed(location: location, reason: "UserDefaults could not synchronize")
        }
    }
}
