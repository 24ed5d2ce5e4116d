import LiveResultsTesting

/// The benchmarks' seeded generator: `LiveResultsTesting`'s SplitMix64 (Steele, Lea and Flood), so every data set
/// and event stream is the same on every run and every machine.
public typealias SplitMix64 = SeededRandom

extension SeededRandom {
    /// A value in `0..<bound`, by multiply-shift: independent of the standard library's algorithm.
    @inlinable public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }
}
