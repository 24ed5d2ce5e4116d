import Foundation
import LiveResults
import LiveResultsExampleKit
import Testing

@Suite("Persistence")
struct PersistenceTests {
    @Test("A file store's values survive into a new instance, in an XML property list")
    func fileStoreAcrossInstances() async throws {
        try await withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("nested/folders/todos.plist").path
            let first = try FileKeyValueStore(path: path)
            try first.set("one", forKey: "todo.1")
            try first.set("two", forKey: "todo.2")
            try first.removeValue(forKey: "todo.2")

            let second = try FileKeyValueStore(path: path)
            #expect(second.keys(withPrefix: "") == ["todo.1"])
            #expect(try second.data(forKey: "todo.1") == Data("one".utf8))
            #expect(try readPropertyList(at: path)["todo.1"] as? Data == Data("one".utf8))
            #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("<?xml"))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path + "/nested/folders") == ["todos.plist"])
        }
    }

    @Test("A file store keeps the values it does not understand when it writes")
    func fileStoreKeepsOtherValues() async throws {
        try await withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("todos.plist").path
            try writePropertyList(["todo.1": "from an older version", "setting": 7], to: path)
            let store = try FileKeyValueStore(path: path)
            try store.set("new", forKey: "todo.2")

            let saved = try readPropertyList(at: path)
            #expect(saved["todo.1"] as? String == "from an older version")
            #expect(saved["setting"] as? Int == 7)
            #expect(saved["todo.2"] as? Data == Data("new".utf8))
        }
    }

    @Test(
        "A file that is not a property list dictionary is refused and left untouched",
        arguments: [
            ("garbage \u{0}\u{1}<<", "not a property list"),
            ("(1, 2, 3)", "a property list of an array, not a dictionary"),
        ])
    func corruptedFile(contents: String, reason: String) async throws {
        try await withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("todos.plist").path
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: KeyValueStoreError.unreadableFile(path: path, reason: reason)) {
                try FileKeyValueStore(path: path)
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == contents)
        }
    }

    @Test("A UserDefaults suite whose file is not a property list is refused, not emptied")
    func corruptedSuiteFile() async throws {
        try await withTemporaryFolder { folder in
            let suite = folder.appendingPathComponent("suite").path
            try "<plist><dict><key>todo.1".write(toFile: suite + ".plist", atomically: true, encoding: .utf8)
            #expect(throws: KeyValueStoreError.unreadableFile(path: suite + ".plist", reason: "not a property list")) {
                try UserDefaultsKeyValueStore(suiteName: suite)
            }
            #expect(try String(contentsOfFile: suite + ".plist", encoding: .utf8) == "<plist><dict><key>todo.1")
        }
    }

    @Test("A batch that cannot be saved throws and stores none of its values")
    func failedBatch() async throws {
        try await withTemporaryFolder { folder in
            let blocker = folder.appendingPathComponent("file")
            try "not a folder".write(to: blocker, atomically: true, encoding: .utf8)
            let todos = TodoList(store: try FileKeyValueStore(path: blocker.appendingPathComponent("todos.plist").path))
            try await todos.load()

            #expect(throws: TodoListError.self) { try todos.generate(count: 3, project: "Later") }
            #expect(todos.repository.store.keys(withPrefix: "") == [])
            #expect(todos.takeUpdates() == [])
        }
    }

    @Test("A write that cannot be saved throws and changes nothing")
    func failedWrite() async throws {
        try await withTemporaryFolder { folder in
            let blocker = folder.appendingPathComponent("file")
            try "not a folder".write(to: blocker, atomically: true, encoding: .utf8)
            let path = blocker.appendingPathComponent("todos.plist").path
            let todos = TodoList(store: try FileKeyValueStore(path: path))
            try await todos.load()

            #expect {
                try todos.add(title: "Buy milk", project: "Home", priority: 2)
            } throws: { error in
                guard case .storeFailed(.writeFailed(let location, _)) = error as? TodoListError else { return false }
                return location == path && "\(error)".hasPrefix("could not save to \(path): ")
            }
            #expect(todos.repository.store.keys(withPrefix: "") == [])
            #expect(todos.takeUpdates() == [])
            #expect(todos.controller.snapshot.isEmpty)
        }
    }

    @Test("A UserDefaults suite named by a path is saved in PATH.plist, which a new instance reads")
    func userDefaultsAcrossInstances() async throws {
        try await withTemporaryFolder { folder in
            let suite = folder.appendingPathComponent("suite").path
            let first = try UserDefaultsKeyValueStore(suiteName: suite)
            try first.set("one", forKey: "todo.1")
            #expect(first.filePath == suite + ".plist")
            #expect(first.location == "UserDefaults suite in \(suite).plist")

            #expect(try readPropertyList(at: suite + ".plist")["todo.1"] as? Data == Data("one".utf8))
            let second = try UserDefaultsKeyValueStore(suiteName: suite)
            #expect(try second.data(forKey: "todo.1") == Data("one".utf8))
        }
    }

    @Test("The file store and UserDefaults read each other's files")
    func sameFormat() async throws {
        try await withTemporaryFolder { folder in
            let suite = folder.appendingPathComponent("shared").path
            try UserDefaultsKeyValueStore(suiteName: suite).set("from UserDefaults", forKey: "todo.1")
            let file = try FileKeyValueStore(path: suite + ".plist")
            #expect(try file.data(forKey: "todo.1") == Data("from UserDefaults".utf8))

            let otherSuite = folder.appendingPathComponent("other").path
            try FileKeyValueStore(path: otherSuite + ".plist").set("from the file store", forKey: "todo.2")
            let defaults = try UserDefaultsKeyValueStore(suiteName: otherSuite)
            #expect(try defaults.data(forKey: "todo.2") == Data("from the file store".utf8))
        }
    }

    @Test("A repository's to-dos survive into a new store instance")
    func repositoryAcrossInstances() async throws {
        try await withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("todos.plist").path
            _ = try repository(FileKeyValueStore(path: path), saving: [TodoItem.milk, .bike, .report])
            let reopened = EntityRepository<TodoItem>(store: try FileKeyValueStore(path: path))
            #expect(reopened.readAll().entities == [TodoItem.milk, .bike, .report])
        }
    }
}
