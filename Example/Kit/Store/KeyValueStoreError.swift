import Foundation

/// Why a ``KeyValueStore`` could not read or write.
public enum KeyValueStoreError: Error, Equatable, CustomStringConvertible {
    /// The value under `key` is not data: `found` names what it is ("text", "a number"…).
    case notData(key: String, found: String)
    /// The store's file exists but is not a property list dictionary; nothing was changed.
    case unreadableFile(path: String, reason: String)
    /// A write could not be saved.
    case writeFailed(location: String, reason: String)

    /// A message for people.
    public var description: String {
        switch self {
        case .notData(let key, let found):
            "the value under \"\(key)\" is \(found), not encoded data"
        case .unreadableFile(let path, let reason):
            "\(path) is not a store this example can read (\(reason)); it was left untouched"
        case .writeFailed(let location, let reason):
            "could not save to \(location): \(reason)"
        }
    }
}

/// What a property list value is, in words: `"text"`, `"a number"`…
///
/// - Parameter value: A value read from a property list.
/// - Returns: A short description of its type, for ``KeyValueStoreError/notData(key:found:)``.
func _propertyListKind(of value: Any) -> String {
    switch value {
    case is Data: "data"
    case is String: "text"
    case is Bool, is Int, is Double, is NSNumber: "a number"
    case is Date: "a date"
    case is [Any]: "an array"
    case is [String: Any]: "a dictionary"
    default: "a \(type(of: value))"
    }
}

/// The data in a property list value, or an error naming what it is instead.
///
/// - Parameters:
///   - value: The value read under `key`, or `nil`.
///   - key: Its key, for the error.
/// - Returns: The data, or `nil` if there is no value.
/// - Throws: ``KeyValueStoreError/notData(key:found:)``.
func _data(from value: Any?, forKey key: String) throws -> Data? {
    guard let value else { return nil }
    guard let data = value as? Data else {
        throw KeyValueStoreError.notData(key: key, found: _propertyListKind(of: value))
    }
    return data
}
