import Foundation
import LiveResultsExampleKit
import Testing

/// Each implementation of `KeyValueStore`, for tests that run on all of them.
enum StoreKind: CaseIterable, CustomTestStringConvertible {
    case memory
    case file
    case userDefaults

    var testDescription: String {
        switch self {
        case .memory: "InMemoryKeyValueStore"
        case .file: "FileKeyValueStore"
        case .userDefaults: "UserDefaultsKeyValueStore"
        }
    }

    /// A new, empty store of this kind in `folder`.
    func makeStore(in folder: URL) throws -> any KeyValueStore {
        switch self {
        case .memory: InMemoryKeyValueStore()
        case .file: try FileKeyValueStore(path: folder.appendingPathComponent("store.plist").path)
        case .userDefaults: try UserDefaultsKeyValueStore(suiteName: folder.appendingPathComponent("store").path)
        }
    }
}
