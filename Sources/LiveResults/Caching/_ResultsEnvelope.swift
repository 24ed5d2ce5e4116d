import Foundation

/// The bytes of one ``FileResultsStore`` file, and their checks.
///
/// Format version 1, every integer big-endian:
///
/// | Offset | Size | Content |
/// |---|---|---|
/// | 0 | 4 | the magic bytes `LRRS` |
/// | 4 | 4 | the format version, `UInt32` (1) |
/// | 8 | 8 | `savedAt.timeIntervalSinceReferenceDate`, the bit pattern of the `Double` |
/// | 16 | 4 | the byte count *k* of the key, UTF-8 |
/// | 20 | *k* | the key |
/// | 20 + *k* | 8 | the byte count *n* of the data |
/// | 28 + *k* | *n* | the data |
/// | 28 + *k* + *n* | 8 | FNV-1a 64 of every byte before it |
///
/// The version is checked right after the magic, so a later version may change everything after it.
/// The key is kept so that two keys sharing a file name (a long key's hashed name, or a
/// case-insensitive file system) never read each other's results.
enum _ResultsEnvelope {
    static let magic: [UInt8] = Array("LRRS".utf8)
    static let version: UInt32 = 1

    /// Why bytes are not a readable envelope.
    enum Problem: Error, Equatable {
        case corrupt(String)
        case unsupportedVersion(Int)
    }

    /// The bytes of a file holding `results` under `key`.
    ///
    /// - Complexity: O(*k* + *n*), the key's and the data's byte counts.
    static func encode(_ results: CachedResults, key: String) -> Data {
        let keyBytes = Array(key.utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(36 + keyBytes.count + results.data.count)
        bytes += magic
        append(UInt64(version), byteCount: 4, to: &bytes)
        append(results.savedAt.timeIntervalSinceReferenceDate.bitPattern, byteCount: 8, to: &bytes)
        append(UInt64(keyBytes.count), byteCount: 4, to: &bytes)
        bytes += keyBytes
        append(UInt64(results.data.count), byteCount: 8, to: &bytes)
        bytes += results.data
        append(checksum(bytes[...]), byteCount: 8, to: &bytes)
        return Data(bytes)
    }

    /// The results in `data` when they were saved under `key`; `nil` when they were saved under another
    /// key that shares the file.
    ///
    /// - Throws: ``Problem``: `.unsupportedVersion` for a file of `LRRS` with another version,
    ///   `.corrupt` for anything else that is not a whole, intact version 1 envelope.
    /// - Complexity: O(*k* + *n*).
    static func decode(_ data: Data, key: String) throws(Problem) -> CachedResults? {
        let bytes = [UInt8](data)
        if bytes.isEmpty { throw .corrupt("the file is empty") }
        guard bytes.starts(with: magic.prefix(bytes.count)) else {
            throw .corrupt("not a LiveResults results file")
        }
        var reader = Reader(bytes: bytes)
        guard reader.skip(magic.count), let version = reader.read(byteCount: 4) else {
            throw .corrupt("truncated in the header (\(bytes.count) bytes)")
        }
        guard version == UInt64(self.version) else { throw .unsupportedVersion(Int(version)) }
        guard let savedAtBits = reader.read(byteCount: 8), let keyCount = reader.read(byteCount: 4),
            let storedKey = reader.slice(Int(keyCount)), let dataCount = reader.read(byteCount: 8),
            dataCount <= UInt64(Int.max), let payload = reader.slice(Int(dataCount)),
            let storedChecksum = reader.read(byteCount: 8)
        else {
            throw .corrupt("truncated (\(bytes.count) bytes)")
        }
        guard reader.offset == bytes.count else {
            throw .corrupt("\(bytes.count - reader.offset) bytes after the end of the envelope")
        }
        guard storedChecksum == checksum(bytes[..<(bytes.count - 8)]) else {
            throw .corrupt("the checksum does not match the contents")
        }
        guard storedKey.elementsEqual(key.utf8) else { return nil }
        return CachedResults(
            data: Data(payload),
            savedAt: Date(timeIntervalSinceReferenceDate: Double(bitPattern: savedAtBits)))
    }

    /// FNV-1a, 64 bits: cheap, dependency-free, and enough to tell damage from a good file.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func append(_ value: UInt64, byteCount: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// Reads big-endian integers and slices from the front, returning `nil` past the end.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func skip(_ count: Int) -> Bool {
            guard bytes.count - offset >= count else { return false }
            offset += count
            return true
        }

        mutating func read(byteCount: Int) -> UInt64? {
            guard let slice = slice(byteCount) else { return nil }
            return slice.reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func slice(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }
    }
}
