import Foundation
import LiveResultsTesting
import Testing

@testable import LiveResults

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh directory under the temporary directory, removed when the test is done.
private func withTemporaryDirectory<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("LiveResultsTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer {
        // Give back the permissions a test took away, so that the directory can be removed.
        _ = chmod(directory.path, 0o755)
        try? FileManager.default.removeItem(at: directory)
    }
    return try await body(directory)
}

/// Whether permissions are enforced: not for root, which reads and writes whatever the mode says.
private var permissionsAreEnforced: Bool { getuid() != 0 }

private func sample(_ seed: Int, count: Int = 1000) -> CachedResults {
    var generator = SeededGenerator(seed: UInt64(seed))
    return CachedResults(
        data: Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }),
        savedAt: Date(timeIntervalSinceReferenceDate: 700_000_000.123_456_789 + Double(seed)))
}

private func names(in directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

/// Whether `error` is the `corrupt` failure of `url`.
private func isCorrupt(_ error: any Error, at url: URL) -> Bool {
    if case .corrupt(let failing, _) = error as? FileResultsStore.Failure { failing == url } else { false }
}

@Suite("File results store", .tags(.concurrent))
struct FileResultsStoreTests {
    static let awkwardKeys = [
        "posts", "", "a/b/c", "/", "..", "../../etc/passwd", ".", ".hidden", "with spaces  and\ttabs",
        "Ünïcødé ✓ 日本語 🚀", "percent%2Fsign", "~", "~.results", "NUL\u{0}byte", "back\\slash",
        String(repeating: "x", count: 300), String(repeating: "é", count: 200), String(repeating: "/", count: 1000),
    ]

    @Test("round trip: the data and date come back exactly, and each key keeps its own file")
    func roundTrip() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            for (index, key) in Self.awkwardKeys.enumerated() {
                try await store.save(sample(index, count: index * 37), forKey: key)
            }
            for (index, key) in Self.awkwardKeys.enumerated() {
                #expect(try await store.results(forKey: key) == sample(index, count: index * 37), "\(key)")
                #expect(
                    store.fileURL(forKey: key).deletingLastPathComponent().standardizedFileURL
                        == directory.standardizedFileURL)
            }
            #expect(try names(in: directory).count == Self.awkwardKeys.count)
            // A save replaces.
            try await store.save(sample(99), forKey: "posts")
            #expect(try await store.results(forKey: "posts") == sample(99))
        }
    }

    @Test("file names stay inside the directory, are valid, and long keys are hashed", arguments: awkwardKeys)
    func fileNames(key: String) {
        let name = FileResultsStore.fileName(forKey: key)
        #expect(name.utf8.count <= 255)
        #expect(!name.contains("/"))
        #expect(!name.hasPrefix("."))
        #expect(name.hasSuffix(".results"))
        #expect(name.utf8.allSatisfy { $0 < 0x80 })
        if key.utf8.count > 200 { #expect(name.contains("~")) }
    }

    @Test("long keys sharing a prefix get different files")
    func longKeysDiffer() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            let prefix = String(repeating: "k", count: 400)
            try await store.save(sample(1), forKey: prefix + "1")
            try await store.save(sample(2), forKey: prefix + "2")
            #expect(try await store.results(forKey: prefix + "1") == sample(1))
            #expect(try await store.results(forKey: prefix + "2") == sample(2))
            #expect(try names(in: directory).count == 2)
        }
    }

    @Test("a file holding another key (a shared name) reads as nothing saved")
    func otherKeyInTheFile() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            let envelope = _ResultsEnvelope.encode(sample(1), key: "other")
            try envelope.write(to: store.fileURL(forKey: "posts"))
            #expect(try await store.results(forKey: "posts") == nil)
        }
    }

    @Test("a missing directory is nothing saved, and a save creates it")
    func missingDirectory() async throws {
        try await withTemporaryDirectory { root in
            let directory = root.appendingPathComponent("not/yet/there", isDirectory: true)
            let store = FileResultsStore(directory: directory)
            #expect(try await store.results(forKey: "posts") == nil)
            try await store.removeResults(forKey: "posts")
            try await store.save(sample(3), forKey: "posts")
            #expect(try await store.results(forKey: "posts") == sample(3))
        }
    }

    @Test("removing a missing key does not throw; removing a saved one leaves nothing saved")
    func remove() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            try await store.removeResults(forKey: "missing")
            try await store.save(sample(4), forKey: "posts")
            try await store.removeResults(forKey: "posts")
            #expect(try await store.results(forKey: "posts") == nil)
            #expect(try names(in: directory).isEmpty)
        }
    }

    @Test("an empty file is corrupt, and a load leaves it in place")
    func emptyFile() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            let url = store.fileURL(forKey: "posts")
            try Data().write(to: url)
            await #expect(throws: FileResultsStore.Failure.corrupt(url, "the file is empty")) {
                try await store.results(forKey: "posts")
            }
            #expect(FileManager.default.fileExists(atPath: url.path))
            // The next save replaces it.
            try await store.save(sample(5), forKey: "posts")
            #expect(try await store.results(forKey: "posts") == sample(5))
        }
    }

    @Test("every truncation of a valid file, and bytes after it, are corrupt")
    func truncatedFiles() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            let url = store.fileURL(forKey: "posts")
            try await store.save(sample(6, count: 40), forKey: "posts")
            let valid = try Data(contentsOf: url)
            for length in 0..<valid.count {
                try valid.prefix(length).write(to: url)
                do {
                    _ = try await store.results(forKey: "posts")
                    Issue.record("a prefix of \(length) bytes loaded")
                } catch {
                    #expect(isCorrupt(error, at: url), "\(length): \(error)")
                }
            }
            try (valid + [0]).write(to: url)
            await #expect { try await store.results(forKey: "posts") } throws: { isCorrupt($0, at: url) }
            try valid.write(to: url)
            #expect(try await store.results(forKey: "posts") == sample(6, count: 40))
        }
    }

    @Test("a flipped bit anywhere after the version is corrupt (the checksum)")
    func damagedFiles() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            let url = store.fileURL(forKey: "posts")
            try await store.save(sample(7, count: 30), forKey: "posts")
            let valid = try Data(contentsOf: url)
            for offset in 8..<valid.count {
                var damaged = valid
                damaged[offset] ^= 0x10
                try damaged.write(to: url)
                do {
                    _ = try await store.results(forKey: "posts")
                    Issue.record("a file damaged at byte \(offset) loaded")
                } catch {
                    #expect(isCorrupt(error, at: url), "\(offset): \(error)")
                }
            }
        }
    }

    @Test(
        "files that are not the envelope are corrupt",
        arguments: [
            Data("{\"data\":\"AQID\",\"savedAt\":0}".utf8), Data("[1, 2, 3]".utf8), Data("LRR".utf8),
            Data("LRRX\0\0\0\u{1}".utf8), Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }),
        ])
    func notTheEnvelope(contents: Data) async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            let url = store.fileURL(forKey: "posts")
            try contents.write(to: url)
            await #expect { try await store.results(forKey: "posts") } throws: { isCorrupt($0, at: url) }
            #expect(try Data(contentsOf: url) == contents)
        }
    }

    @Test("a file of another format version throws unsupportedVersion", arguments: [0, 2, 7, 0x0102_0304])
    func otherVersion(version: Int) async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            let url = store.fileURL(forKey: "posts")
            try await store.save(sample(8), forKey: "posts")
            var contents = try Data(contentsOf: url)
            for index in 0..<4 {
                contents[4 + index] = UInt8(truncatingIfNeeded: version >> ((3 - index) * 8))
            }
            try contents.write(to: url)
            await #expect(throws: FileResultsStore.Failure.unsupportedVersion(url, found: version)) {
                try await store.results(forKey: "posts")
            }
        }
        #expect(FileResultsStore.formatVersion == 1)
    }

    @Test("an unreadable file throws unreadable (not checked as root, where permissions are not enforced)")
    func unreadableFile() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory)
            let url = store.fileURL(forKey: "posts")
            try await store.save(sample(9), forKey: "posts")
            #expect(chmod(url.path, 0o000) == 0)
            if permissionsAreEnforced {
                await #expect {
                    try await store.results(forKey: "posts")
                } throws: { error in
                    if case .unreadable(url, _) = error as? FileResultsStore.Failure { true } else { false }
                }
            } else {
                // Root reads it anyway: the load must still give back the whole save.
                #expect(try await store.results(forKey: "posts") == sample(9))
            }
            // A directory in the file's place cannot be read, even by root.
            let blocked = store.fileURL(forKey: "blocked")
            try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: false)
            await #expect {
                try await store.results(forKey: "blocked")
            } throws: { error in
                if case .unreadable(blocked, _) = error as? FileResultsStore.Failure { true } else { false }
            }
        }
    }

    @Test("a read-only directory: a save throws unwritable (not checked as root) and leaves no file")
    func readOnlyDirectory() async throws {
        try await withTemporaryDirectory { root in
            let directory = root.appendingPathComponent("store", isDirectory: true)
            let store = FileResultsStore(directory: directory)
            try await store.save(sample(10), forKey: "posts")
            #expect(chmod(directory.path, 0o555) == 0)
            defer { _ = chmod(directory.path, 0o755) }
            if permissionsAreEnforced {
                await #expect {
                    try await store.save(sample(11), forKey: "posts")
                } throws: { error in
                    if case .unwritable = error as? FileResultsStore.Failure { true } else { false }
                }
                #expect(try await store.results(forKey: "posts") == sample(10))
            } else {
                // Root writes anyway: the save must then replace the file completely.
                try await store.save(sample(11), forKey: "posts")
                #expect(try await store.results(forKey: "posts") == sample(11))
            }
            #expect(try names(in: directory) == [FileResultsStore.fileName(forKey: "posts")])
            // A regular file where the directory should be cannot be written, even by root.
            let file = root.appendingPathComponent("a-file")
            try Data([1]).write(to: file)
            let blocked = FileResultsStore(directory: file.appendingPathComponent("store"))
            await #expect {
                try await blocked.save(sample(12), forKey: "posts")
            } throws: { error in
                if case .unwritable = error as? FileResultsStore.Failure { true } else { false }
            }
            #expect(try await blocked.results(forKey: "posts") == nil)
        }
    }

    @Test("50 concurrent saves to one key leave exactly one whole payload and no temporary file")
    func concurrentSaves() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileResultsStore(directory: directory.appendingPathComponent("created-by-the-saves"))
            let payloads = (0..<50).map { index in
                CachedResults(
                    data: Data(repeating: UInt8(index), count: 64 * 1024 + index),
                    savedAt: Date(timeIntervalSince1970: Double(index)))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for payload in payloads {
                    group.addTask { try await store.save(payload, forKey: "shared") }
                }
                // Readers at the same time see a whole save or nothing, never a partial or corrupt one.
                for _ in 0..<10 {
                    group.addTask {
                        for _ in 0..<5 {
                            if let seen = try await store.results(forKey: "shared") {
                                #expect(payloads.contains(seen))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let result = try #require(try await store.results(forKey: "shared"))
            #expect(payloads.contains(result))
            #expect(try names(in: store.directory) == [FileResultsStore.fileName(forKey: "shared")])
        }
    }

    @Test("failures describe the file and the problem")
    func descriptions() {
        let url = URL(fileURLWithPath: "/tmp/x.results")
        #expect(FileResultsStore.Failure.corrupt(url, "the file is empty").description.contains("/tmp/x.results"))
        #expect(FileResultsStore.Failure.unsupportedVersion(url, found: 3).url == url)
        #expect(FileResultsStore.Failure.unsupportedVersion(url, found: 3).description.contains("3"))
    }
}
