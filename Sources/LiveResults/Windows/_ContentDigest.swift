import Foundation

/// Digests that every process computes alike, for versions named by what they hold (see
/// ``LiveWindow/nameVersionsByContents(scope:)``): 64-bit FNV-1a, finished with a 64-bit mix so that nearby
/// inputs spread over the whole range. Not `Hasher`, which is seeded differently in every process.
@usableFromInline enum _ContentDigest {
    /// The digest of `text`'s UTF-8 bytes.
    ///
    /// - Complexity: O(*m*) for *m* bytes.
    @usableFromInline static func of(_ text: String) -> UInt64 {
        var state = FNV()
        state.add(text.utf8)
        return state.finish()
    }

    /// The digest of `entities` in order, each as its JSON with sorted keys (so that a dictionary among its
    /// properties encodes alike everywhere); `nil` when one does not encode (it could not go over the wire).
    ///
    /// - Complexity: O(*w*) encodings for *w* entities.
    @usableFromInline static func of<Entity: Encodable>(_ entities: some Sequence<Entity>) -> UInt64? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var state = FNV()
        for entity in entities {
            guard let json = try? encoder.encode(entity) else { return nil }
            state.add(json)
            // A byte that JSON never holds separates the entities: [ab, c] and [a, bc] differ.
            state.add(CollectionOfOne(0xFF))
        }
        return state.finish()
    }

    private struct FNV {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }

        /// SplitMix64's finalizer over the FNV state.
        func finish() -> UInt64 {
            var z = value &+ 0x9e37_79b9_7f4a_7c15
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }
}
