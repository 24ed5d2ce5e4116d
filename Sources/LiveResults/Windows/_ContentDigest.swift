import Foundation

/// Digests that every process computes alike, for versions named by what they hold (see
/// ``LiveWindow/nameVersionsByContents(scope:)``): 64-bit FNV-1a, finished with a 64-bit mix so that nearby
/// inputs spread over the whole range (a sum of mixed digests stays as unlikely to collide as one). Not
/// `Hasher`, which is seeded differently in every process.
@usableFromInline enum _ContentDigest {
    /// The digest of `text`'s UTF-8 bytes.
    ///
    /// - Complexity: O(*m*) for *m* bytes.
    @usableFromInline static func of(_ text: String) -> UInt64 {
        var state = FNV()
        state.add(text.utf8)
        return state.finish()
    }

    /// The digest of `entity`'s JSON with sorted keys (so that a dictionary among its properties encodes alike
    /// everywhere); `nil` when it does not encode (it could not go over the wire either).
    ///
    /// - Complexity: O(1) encodings.
    @usableFromInline static func of<Entity: Encodable>(_ entity: Entity) -> UInt64? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let json = try? encoder.encode(entity) else { return nil }
        var state = FNV()
        state.add(json)
        return state.finish()
    }

    /// The name of contents whose entities' digests sum to `sum`: the sum mixed with their count.
    ///
    /// - Complexity: O(1).
    @usableFromInline static func finish(_ sum: UInt64, count: Int) -> UInt64 {
        var state = FNV()
        state.value = sum ^ (UInt64(truncatingIfNeeded: count) &* 0x9e37_79b9_7f4a_7c15)
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
