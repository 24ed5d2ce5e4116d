import LiveResultsTesting

/// The tests' deterministic random number generator: `LiveResultsTesting`'s SplitMix64, so a failing seed can be
/// replayed.
typealias SeededGenerator = SeededRandom
