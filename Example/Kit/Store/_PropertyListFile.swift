import Foundation

/// The dictionary in the property list file at `url`, or `nil` if there is no file.
///
/// - Throws: ``KeyValueStoreError/unreadableFile(path:reason:)`` if the file cannot be read or is not
///   a property list dictionary.
func _propertyListDictionary(at url: URL) throws -> [String: Any]? {
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    let data: Data
    let plist: Any
    do {
        data = try Data(contentsOf: url)
    } catch {
        throw KeyValueStoreError.unreadableFile(path: url.path, reason: error.localizedDescription)
    }
    do {
        plist = try PropertyListSerialization.propertyList(from: data, format: nil)
    } catch {
        throw KeyValueStoreError.unreadableFile(path: url.path, reason: "not a property list")
    }
    guard let dictionary = plist as? [String: Any] else {
        throw KeyValueStoreError.unreadableFile(
            path: url.path, reason: "a property list of \(_propertyListKind(of: plist)), not a dictionary")
    }
    return dictionary
}
