/// What memory costs on this machine, away from LiveResults: the floors that the event workloads at a
/// million entities run into, measured the same way on any machine (`swift run -c release Workload
/// memory`).
///
/// - A *dependent* load: a pointer chase over a buffer much larger than the last-level cache, each
///   address read from the line before, so misses cannot overlap: what each level of a descent that
///   leaves the cache waits for.
/// - An *independent* load: random lines of the same buffer whose addresses are known ahead, so misses
///   overlap as far as the processor allows: the most that prefetching can give.
/// - A retain of a cold object: objects scattered over a heap larger than the cache, retained one after
///   another (each address known ahead): what a copy of an internal node pays per child it retains.
public enum MemoryLatency {
    /// Nanoseconds per operation of each kind.
    public struct Report: Sendable {
        public var dependentLoad: Double
        public var independentLoad: Double
        public var coldRetain: Double
    }

    /// An object the size of a small tree node's header line and a little more, as a child would be.
    private final class Cold {
        var words: (Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0)
    }

    /// Measures over `megabytes` of lines and `objects` objects, `operations` of each kind.
    public static func measure(megabytes: Int = 256, objects: Int = 1_500_000, operations: Int = 2_000_000) -> Report {
        var random = SplitMix64(seed: 0x4C52)
        let lines = megabytes << 14
        let (dependent, independent) = loads(lines: lines, operations: operations, random: &random)
        return Report(
            dependentLoad: dependent, independentLoad: independent,
            coldRetain: retains(objects: objects, operations: operations, random: &random))
    }

    private static func loads(lines: Int, operations: Int, random: inout SplitMix64) -> (Double, Double) {
        // One word per 64-byte line is used: the index of the next line in a shuffled order of all of
        // them, so the chase visits every line before it repeats.
        let buffer = UnsafeMutablePointer<Int>.allocate(capacity: lines * 8)
        defer { buffer.deallocate() }
        let order = Array(0..<lines).shuffled(using: &random)
        for index in 0..<lines { buffer[order[index] * 8] = order[(index + 1) % lines] }
        let dependent = nanoseconds(per: operations) {
            var line = 0
            for _ in 0..<operations { line = buffer[line * 8] }
            return line
        }
        let targets = (0..<operations).map { _ in random.below(lines) }
        let independent = nanoseconds(per: operations) {
            targets.reduce(0) { $0 &+ buffer[$1 * 8] }
        }
        return (dependent, independent)
    }

    private static func retains(objects: Int, operations: Int, random: inout SplitMix64) -> Double {
        let heap = (0..<objects).map { _ in Cold() }.shuffled(using: &random)
        let references = heap.map { Unmanaged.passUnretained($0) }
        let targets = (0..<operations).map { _ in random.below(objects) }
        let retain = nanoseconds(per: operations) {
            for target in targets { _ = references[target].retain() }
            return targets.count
        }
        for target in targets { references[target].release() }
        withExtendedLifetime(heap) {}
        return retain
    }

    /// The wall-clock nanoseconds per operation of `work`, whose result is kept so that it runs.
    private static func nanoseconds(per operations: Int, _ work: () -> Int) -> Double {
        let start = ContinuousClock.now
        let result = work()
        let (seconds, attoseconds) = start.duration(to: .now).components
        precondition(result != Int.min, "unreachable: keeps the work")
        return (Double(seconds) + Double(attoseconds) * 1e-18) / Double(operations) * 1e9
    }
}
