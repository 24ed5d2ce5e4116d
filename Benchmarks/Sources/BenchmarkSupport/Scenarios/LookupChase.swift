import LiveResults

/// Chains of lookups in a snapshot, each one's key derived from the previous result, so that one
/// lookup's memory misses cannot overlap the next one's: the latency of a lookup by id and of an index
/// path by id, beside a `[Int: Row]` lookup as the floor of a hash lookup at that size.
public enum LookupChase {
    /// Nanoseconds per lookup of each kind, over `lookups` lookups in a controller of `count` rows.
    public static func run(count: Int, lookups: Int) async throws -> (
        object: Double, indexPath: Double, dictionary: Double
    ) {
        let rows = Dataset.rows(count: count)
        let design = try await LiveResultsDesign(fetching: rows)
        let snapshot = design.controller.snapshot
        var dictionary = [Int: Row](minimumCapacity: count)
        for row in rows { dictionary[row.id] = row }
        func next(_ value: Int, _ step: Int) -> Int {
            Int(truncatingIfNeeded: UInt64(bitPattern: Int64(value &* 0x9E37_79B9 &+ step)) % UInt64(count))
        }
        func nanoseconds(_ chase: () -> Int) -> Double {
            let start = ContinuousClock.now
            let last = chase()
            let (seconds, attoseconds) = start.duration(to: .now).components
            precondition(last >= 0 && last < count, "the chase left the ids")
            return (Double(seconds) + Double(attoseconds) * 1e-18) / Double(lookups) * 1e9
        }
        let object = nanoseconds {
            (0..<lookups).reduce(1) { id, step in next(snapshot.object(withID: id)!.score, step) }
        }
        let indexPath = nanoseconds {
            (0..<lookups).reduce(1) { id, step in
                let path = snapshot.indexPath(forID: id)!
                return next(path[0] &+ path[1], step)
            }
        }
        let floor = nanoseconds {
            (0..<lookups).reduce(1) { id, step in next(dictionary[id]!.score, step) }
        }
        return (object, indexPath, floor)
    }
}
