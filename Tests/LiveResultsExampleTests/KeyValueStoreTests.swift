import Foundation
import LiveResultsExampleKit
import Testing

@Suite("Key-value stores")
struct KeyValueStoreTests {
    @Test("A value reads back as written, until it is removed", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let store = try kind.makeStore(in: folder)
            #expect(try store.data(forKey: "todo.1") == nil)
            #expect(!store.hasValue(forKey: "todo.1"))

            try store.set(Data([0, 1, 2]), forKey: "todo.1")
            try store.set(Data("x".utf8), forKey: "todo.1")
            #expect(try store.data(forKey: "todo.1") == Data("x".utf8))
            #expect(store.hasValue(forKey: "todo.1"))

            try store.removeValue(forKey: "todo.1")
            #expect(try store.data(forKey: "todo.1") == nil)
            #expect(!store.hasValue(forKey: "todo.1"))
            try store.removeValue(forKey: "todo.1")  // removing nothing is fine
        }
    }

    @Test("keys(withPrefix:) lists the matching keys in ascending order", arguments: StoreKind.allCases)
    func keysWithPrefix(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let store = try kind.makeStore(in: folder)
            for key in ["todo.2", "author.1", "todo.10", "todo.1"] {
                try store.set("{}", forKey: key)
            }
            #expect(store.keys(withPrefix: "todo.") == ["todo.1", "todo.10", "todo.2"])
            #expect(store.keys(withPrefix: "author.") == ["author.1"])
            #expect(store.keys(withPrefix: "post.") == [])
        }
    }

    @Test("setValues stores every value in one call, replacing those there", arguments: StoreKind.allCases)
    func setValues(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let store = try kind.makeStore(in: folder)
            try store.set("old", forKey: "todo.1")
            try store.set("kept", forKey: "todo.3")
            try store.setValues(["todo.1": Data("one".utf8), "todo.2": Data("two".utf8)])
            try store.setValues([:])

            // A new instance reads what the file holds; the in-memory store has only itself.
            let reopened = kind == .memory ? store : try kind.makeStore(in: folder)
            #expect(reopened.keys(withPrefix: "todo.") == ["todo.1", "todo.2", "todo.3"])
            #expect(try reopened.data(forKey: "todo.1") == Data("one".utf8))
            #expect(try reopened.data(forKey: "todo.2") == Data("two".utf8))
            #expect(try reopened.data(forKey: "todo.3") == Data("kept".utf8))
        }
    }

    @Test("A value that is not data is reported by what it is", arguments: [StoreKind.file, .userDefaults])
    func notData(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("store.plist").path  // the file of either store
            try writePropertyList(["todo.1": "a string", "todo.2": 42, "todo.3": Data("{}".utf8)], to: path)
            let store = try kind.makeStore(in: folder)

            #expect(throws: KeyValueStoreError.notData(key: "todo.1", found: "text")) {
                try store.data(forKey: "todo.1")
            }
            #expect(throws: KeyValueStoreError.notData(key: "todo.2", found: "a number")) {
                try store.data(forKey: "todo.2")
            }
            #expect(try store.data(forKey: "todo.3") == Data("{}".utf8))
            #expect(store.hasValue(forKey: "todo.1"))
        }
    }

    @Test func errorMessages() {
        #expect(
            "\(KeyValueStoreError.notData(key: "todo.1", found: "text"))"
                == "the value under \"todo.1\" is text, not encoded data")
        #expect(
            "\(KeyValueStoreError.unreadableFile(path: "/tmp/x.plist", reason: "not a property list"))"
                == "/tmp/x.plist is not a store this example can read (not a property list); it was left untouched")
        #expect(
            "\(KeyValueStoreError.writeFailed(location: "/tmp/x.plist", reason: "disk full"))"
                == "could not save to /tmp/x.plist: disk full")
    }
}

/// Writes `values` as an XML property list, as `UserDefaults` does.
func writePropertyList(_ values: [String: Any], to path: String) throws {
    let data = try PropertyListSerialization.data(fromPropertyList: values, format: .xml, options: 0)
    try data.write(to: URL(fileURLWithPath: path))
}

/// The property list dictionary in the file at `path`.
func readPropertyList(at path: String) throws -> [String: Any] {
    let plist = try PropertyListSerialization.propertyList(
        from: Data(contentsOf: URL(fileURLWithPath: path)), format: nil)
    return try #require(plist as? [String: Any])
}
