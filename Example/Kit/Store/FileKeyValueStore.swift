import Foundation
import Synchronization

/// A ``KeyValueStore`` in a property list file at a path you choose, written atomically.
///
/// The file has the same format as a `UserDefaults` suite on Linux (an XML property list
/// dictionary), so either store can open the other's file. The store reads the file once, when it
/// opens; every write saves the whole dictionary to a temporary file and renames it over the old
/// one, so a crash leaves the old file or the new one, never half of one. As every write costs the
/// whole file, ``setValues(_:)`` stores many values in one. A file that exists but is not a property
/// list dictionary is refused, not replaced.
///
/// One process at a time should write a given file: the last writer wins.
///
/// ```swift
/// let store = try FileKeyValueStore(path: "todos.plist")
/// try store.set(Data("hello".utf8), forKey: "greeting")
/// ```
public final class FileKeyValueStore: KeyValueStore {
    /// The file's contents. Values that are not data are kept as they are and written back.
    private let values: Mutex<[String: Any]>

    /// The file.
    public let url: URL

    /// Opens the store at `path`. The file and its folders are created on the first write.
    ///
    /// - Parameter path: The file's path, absolute or relative to the current directory.
    /// - Throws: ``KeyValueStoreError/unreadableFile(path:reason:)`` if the file exists but is not a
    ///   property list dictionary, or cannot be read.
    public init(path: String) throws {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        self.values = Mutex(try _propertyListDictionary(at: url) ?? [:])
        self.url = url
    }

    /// The file's path.
    public var location: String { url.path }

    public func keys(withPrefix prefix: String) -> [String] {
        values.withLock { $0.keys.filter { $0.hasPrefix(prefix) } }.sorted()
    }

    public func hasValue(forKey key: String) -> Bool {
        values.withLock { $0[key] != nil }
    }

    public func data(forKey key: String) throws -> Data? {
        try values.withLock { try _data(from: $0[key], forKey: key) }
    }

    public func set(_ data: Data, forKey key: String) throws {
        try write { $0[key] = data }
    }

    public func setValues(_ values: [String: Data]) throws {
        try write { stored in
            for (key, data) in values {
                stored[key] = data
            }
        }
    }

    public func removeValue(forKey key: String) throws {
        try write { $0.removeValue(forKey: key) }
    }

    /// Changes the dictionary and saves it; if saving fails, the dictionary is left as it was.
    private func write(_ change: (inout [String: Any]) -> Void) throws {
        try values.withLock { values in
            var changed = values
            change(&changed)
            try save(changed)
            values = changed
        }
    }

    private func save(_ values: [String: Any]) throws {
        do {
            let data = try PropertyListSerialization.data(fromPropertyList: values, format: .xml, options: 0)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw KeyValueStoreError.writeFailed(location: location, reason: error.localizedDescription)
        }
    }
}
