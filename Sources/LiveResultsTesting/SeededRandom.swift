/// A random number generator that gives the same numbers for the same seed on every platform, so that a
/// randomized test that fails can be replayed from its seed.
///
/// The algorithm is SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state advanced by a fixed odd constant
/// and mixed by two multiply-xorshift rounds. It passes BigCrush, needs no seeding rules (every seed, 0
/// included, is good) and is not cryptographic.
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let score = Int.random(in: 0..<10, using: &random)    // the same on every run and every machine
/// let shuffled = [1, 2, 3].shuffled(using: &random)
/// ```
///
/// The numbers of `next()` are fixed by this algorithm; what the standard library derives from them
/// (`Int.random(in:using:)`, `shuffled(using:)`) is the same for a given toolchain. `next()` is inlinable, so a
/// benchmark's workload pays no call for it.
public struct SeededRandom: RandomNumberGenerator, Sendable, Hashable {
    @usableFromInline var state: UInt64

    /// A generator that starts from `seed`.
    ///
    /// - Parameter seed: Any value; two generators with the same seed give the same numbers.
    /// - Complexity: O(1).
    @inlinable public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    ///
    /// - Complexity: O(1).
    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
