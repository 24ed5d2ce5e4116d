import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``ResultsStore`` that keeps each key's results in a file of its own in one directory.
///
/// **Atomic saves.** A save writes a temporary file in the same directory (named `.tmp-…`, which no
/// key's file name can be), flushes it to disk, and renames it over the key's file. A reader therefore
/// sees the whole earlier file or the whole new one, and two writers at once leave exactly one of their
/// saves, never a mix. A process killed in the middle of a save can leave a `.tmp-…` file behind; it is
/// never read and can be deleted.
///
/// **File names.** The key's UTF-8 bytes are percent-encoded: ASCII letters, digits, `-` and `_` stay,
/// every other byte becomes `%XX`, so `/`, `..`, spaces and any Unicode stay inside the directory.
/// The name ends in `.results`: `"posts/1 new"` → `posts%2F1%20new.results`. A name that would be
/// longer than 200 bytes keeps the first 128 bytes of its encoding, then `~` and a 64-bit hash of the
/// key, so every name stays well under the 255 bytes file systems allow; the empty key is
/// `~.results`. Each file also holds its key, so two keys that end up sharing a file (a hash
/// collision, or names differing only in case on a case-insensitive file system) never read each
/// other's results: a load finds "nothing saved", and each save replaces the other's.
///
/// **Format.** A small binary envelope: the magic bytes `LRRS`, a format version (now
/// ``formatVersion``, checked on every load), `savedAt`, the key, the data, and a checksum.
///
/// **Errors** are ``Failure`` values, thrown and never fatal. A damaged file is reported, not
/// repaired or removed: a load throws ``Failure/corrupt(_:_:)`` and leaves it in place, and the next
/// save replaces it.
///
/// Its operations do blocking file I/O on the task's thread, for the time of one file's read or write.
///
/// ```swift
/// let folder = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
///     .appendingPathComponent("Results")
/// let store = FileResultsStore(directory: folder)
/// try await store.save(CachedResults(data: encoded, savedAt: Date()), forKey: "posts")
/// let cached = try await store.results(forKey: "posts")
/// ```
public struct FileResultsStore: ResultsStore {
    /// The version of the file format this store writes and reads; a file of another version throws
    /// ``Failure/unsupportedVersion(_:found:)``.
    public static let formatVersion = Int(_ResultsEnvelope.version)

    /// The directory holding the files, created by the first save when it does not exist.
    public let directory: URL

    /// Creates a store over the files of `directory`.
    ///
    /// Nothing is read or created until the first operation.
    ///
    /// - Parameter directory: A directory of its own for the store: do not keep other files in it.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The file that holds the results of `key`, whether or not it exists.
    ///
    /// - Parameter key: Any string.
    /// - Returns: A file directly inside ``directory``.
    /// - Complexity: O(*k*), the key's byte count.
    public func fileURL(forKey key: String) -> URL {
        directory.appendingPathComponent(Self.fileName(forKey: key), isDirectory: false)
    }

    /// Returns the results saved under `key`, or `nil` when nothing is saved: no file, no directory,
    /// or a file of another key that shares the name.
    ///
    /// - Parameter key: Any string.
    /// - Returns: The data and date of the last save, exactly.
    /// - Throws: ``Failure/unreadable(_:_:)`` when the file exists but cannot be read,
    ///   ``Failure/corrupt(_:_:)`` when it is empty, truncated, damaged or not this store's,
    ///   ``Failure/unsupportedVersion(_:found:)`` when another format version wrote it. The file is
    ///   left as it is.
    /// - Complexity: O(*k* + *n*), the key's and the file's byte counts.
    public func results(forKey key: String) async throws -> CachedResults? {
        let url = fileURL(forKey: key)
        guard let contents = try Self.readFile(at: url) else { return nil }
        do {
            return try _ResultsEnvelope.decode(contents, key: key)
        } catch .corrupt(let reason) {
            throw Failure.corrupt(url, reason)
        } catch .unsupportedVersion(let found) {
            throw Failure.unsupportedVersion(url, found: found)
        }
    }

    /// Saves `results` under `key`, atomically replacing the file, damaged or not; creates
    /// ``directory`` when it does not exist.
    ///
    /// - Parameters:
    ///   - results: The results to keep.
    ///   - key: Any string.
    /// - Throws: ``Failure/unwritable(_:_:)`` when the directory cannot be created or written, or the
    ///   file cannot be replaced. The earlier file then stays as it was, and no temporary file stays.
    /// - Complexity: O(*k* + *n*), the key's and the data's byte counts.
    public func save(_ results: CachedResults, forKey key: String) async throws {
        let url = fileURL(forKey: key)
        try createDirectory()
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)", isDirectory: false)
        try Self.writeNewFile(at: temporary, contents: _ResultsEnvelope.encode(results, key: key))
        let renamed = temporary.withUnsafeFileSystemRepresentation { from in
            url.withUnsafeFileSystemRepresentation { to in rename(from!, to!) == 0 ? 0 : errno }
        }
        if renamed != 0 {
            Self.removeQuietly(temporary)
            throw Failure.unwritable(url, Self.describe(renamed))
        }
    }

    /// Removes the file of `key`; does nothing when there is none.
    ///
    /// - Parameter key: Any string.
    /// - Throws: ``Failure/unwritable(_:_:)`` when the file exists but cannot be removed.
    /// - Complexity: O(*k*), the key's byte count.
    public func removeResults(forKey key: String) async throws {
        let url = fileURL(forKey: key)
        let failure = url.withUnsafeFileSystemRepresentation { path in unlink(path!) == 0 ? 0 : errno }
        if failure != 0, failure != ENOENT, failure != ENOTDIR {
            throw Failure.unwritable(url, Self.describe(failure))
        }
    }
}

// MARK: - File names

extension FileResultsStore {
    /// The longest encoded key used as it is; longer ones are cut and hashed.
    static let longestPlainName = 200
    /// How much of a long key's encoding its name keeps.
    static let hashedNamePrefix = 128

    /// The file name of `key`: see the type's documentation.
    static func fileName(forKey key: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded = [UInt8]()
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        if encoded.count > longestPlainName {
            var cut = hashedNamePrefix
            // Never cut inside a `%XX` escape.
            if encoded[cut - 1] == UInt8(ascii: "%") {
                cut -= 1
            } else if encoded[cut - 2] == UInt8(ascii: "%") {
                cut -= 2
            }
            let hash = _ResultsEnvelope.checksum(key.utf8)
            let digits = String(hash, radix: 16, uppercase: false)
            encoded =
                Array(encoded[..<cut]) + Array("~".utf8)
                + Array((String(repeating: "0", count: 16 - digits.count) + digits).utf8)
        } else if encoded.isEmpty {
            encoded = Array("~".utf8)
        }
        return String(decoding: encoded, as: UTF8.self) + ".results"
    }
}

// MARK: - File system

extension FileResultsStore {
    private func createDirectory() throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            // Another save may have created it in the meantime.
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory),
                isDirectory.boolValue
            {
                return
            }
            throw Failure.unwritable(directory, "cannot create the directory: \(error)")
        }
    }

    /// The whole contents of the file at `url`, or `nil` when neither it nor its directory exists.
    private static func readFile(at url: URL) throws -> Data? {
        let descriptor = url.withUnsafeFileSystemRepresentation { open($0!, O_RDONLY | O_CLOEXEC) }
        if descriptor < 0 {
            let failure = errno
            if failure == ENOENT || failure == ENOTDIR { return nil }
            throw Failure.unreadable(url, describe(failure))
        }
        defer { close(descriptor) }
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return contents }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure.unreadable(url, describe(errno))
            }
            contents.append(contentsOf: buffer[..<count])
        }
    }

    /// Creates the file at `url`, which must not exist, writes `contents` and flushes them to disk.
    /// Removes the file again when any step fails.
    private static func writeNewFile(at url: URL, contents: Data) throws {
        let descriptor = url.withUnsafeFileSystemRepresentation {
            open($0!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        if descriptor < 0 {
            throw Failure.unwritable(url.deletingLastPathComponent(), describe(errno))
        }
        var failure: Int32 = 0
        contents.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += count
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        if failure != 0 {
            removeQuietly(url)
            throw Failure.unwritable(url.deletingLastPathComponent(), describe(failure))
        }
    }

    private static func removeQuietly(_ url: URL) {
        _ = url.withUnsafeFileSystemRepresentation { unlink($0!) }
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
