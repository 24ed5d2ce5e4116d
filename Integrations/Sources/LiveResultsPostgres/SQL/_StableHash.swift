/// FNV-1a, 64 bits: a hash that is the same in every process and release, for the names this module
/// derives from a table and a channel (its trigger function, triggers and transaction settings), which
/// must be equal in every process that follows the table.
enum _StableHash {
    /// The hash of `parts`, each followed by a 0 byte, as 16 lowercase hexadecimal digits.
    ///
    /// - Complexity: O(*n*) for *n* bytes.
    static func hex(_ parts: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in part.utf8 + [0] {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
