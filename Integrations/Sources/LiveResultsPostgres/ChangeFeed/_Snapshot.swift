/// A PostgreSQL snapshot (`pg_current_snapshot()`, as text `xmin:xmax:xip,…`), and which transactions it sees.
///
/// A fetch records the snapshot its rows were read in; the feed then skips, for that table, each transaction
/// the snapshot already sees: it is in the fetch's result.
struct _Snapshot: Equatable, Sendable {
    /// Every transaction below it had ended when the snapshot was taken.
    var xmin: UInt64
    /// No transaction from it on had started.
    var xmax: UInt64
    /// The transactions between the two that were still running.
    var running: Set<UInt64>

    /// A snapshot that sees nothing: it stands for a fetch that met no slot.
    static let none = _Snapshot(xmin: 0, xmax: 0, running: [])

    init(xmin: UInt64, xmax: UInt64, running: Set<UInt64>) {
        (self.xmin, self.xmax, self.running) = (xmin, xmax, running)
    }

    /// Reads `pg_current_snapshot()`'s text form.
    init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]) else { return nil }
        var running = Set<UInt64>()
        for xid in parts[2].split(separator: ",") {
            guard let xid = UInt64(xid) else { return nil }
            running.insert(xid)
        }
        (self.xmin, self.xmax, self.running) = (xmin, xmax, running)
    }

    /// Whether a transaction that committed is in the snapshot, as `pg_visible_in_snapshot` says.
    ///
    /// `xid` is the 32-bit xid of `pgoutput`'s Begin message: it is widened with the epoch of ``xmax``, the
    /// nearest 64-bit xid with those low bits (a committed transaction the feed reads is within 2³¹ of it).
    func sees(_ xid: UInt32) -> Bool {
        let full = Self.widen(xid, near: xmax)
        if full < xmin { return true }
        if full >= xmax { return false }
        return !running.contains(full)
    }

    /// Whether this snapshot sees every committed transaction that `other` sees: `other` was taken before it.
    ///
    /// Conservative: `false` when that cannot be told from the two snapshots alone.
    func seesEverything(seenBy other: _Snapshot) -> Bool {
        guard other.xmax <= xmax else { return false }
        // What this one does not see below `other.xmax` is what it had running; `other` must not see those.
        for xid in running where xid < other.xmax {
            if xid < other.xmin || !other.running.contains(xid) { return false }
        }
        return true
    }

    static func widen(_ xid: UInt32, near reference: UInt64) -> UInt64 {
        let difference = Int64(Int32(bitPattern: xid &- UInt32(truncatingIfNeeded: reference)))
        return UInt64(bitPattern: Int64(bitPattern: reference) &+ difference)
    }
}
