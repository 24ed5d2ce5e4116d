/// Digests that every process computes alike, for versions named by what they hold (see
/// ``LiveWindow/nameVersionsByContents(scope:)``): 64-bit FNV-1a, finished with a 64-bit mix so that nearby
/// inputs spread over the whole range (a sum of mixed digests stays as unlikely to collide as one). Not
/// `Hasher`, which is seeded differently in every process.
@usableFromInline enum _ContentDigest {
    /// The digest of `text`'s UTF-8 bytes.
    ///
    /// - Complexity: O(*m*) for *m* bytes.
    @usableFromInline static func of(_ text: String) -> UInt64 {
        var state = State()
        state.add(text.utf8)
        return state.finish()
    }

    /// The digest of what `entity` encodes (see `_DigestEncoder`): equal for equal contents in every process,
    /// whatever the order of a dictionary's keys; `nil` when it does not encode (it could not go over the wire
    /// either).
    ///
    /// - Complexity: O(1) encodings.
    @usableFromInline static func of<Entity: Encodable>(_ entity: Entity) -> UInt64? {
        _DigestEncoder.digest(of: entity)
    }

    /// `first` and `second` mixed into one digest, in order.
    ///
    /// - Complexity: O(1).
    static func mix(_ first: UInt64, _ second: UInt64) -> UInt64 {
        var state = State()
        state.add(word: first)
        state.add(word: second)
        return state.finish()
    }

    /// The name of contents whose entities' digests sum to `sum`: the sum mixed with their count.
    ///
    /// - Complexity: O(1).
    @usableFromInline static func finish(_ sum: UInt64, count: Int) -> UInt64 {
        var state = State()
        state.value = sum ^ (UInt64(truncatingIfNeeded: count) &* 0x9e37_79b9_7f4a_7c15)
        return state.finish()
    }

    /// 64-bit FNV-1a's state.
    struct State {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { add(byte: byte) }
        }

        mutating func add(byte: UInt8) {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }

        /// A tag that tells kinds of values apart.
        mutating func add(tag: UInt8) { add(byte: tag) }

        /// A word's eight bytes, the least significant first.
        mutating func add(word: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) { add(byte: UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
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
