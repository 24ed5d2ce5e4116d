import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension TemporaryPostgres {
    /// The CPU time, in seconds, that the server's processes have used since it started: the postmaster's own,
    /// its running children's (backends, the writer processes), and that of the children that ended (which the
    /// postmaster waited for). `nil` where `/proc` cannot tell (not Linux).
    ///
    /// For benchmarks: the difference between two readings is what the server spent in between, a closed
    /// pgbench session included.
    public var cpuSeconds: Double? {
        guard let text = try? String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8),
            let line = text.split(separator: "\n").first, let postmaster = Int32(line),
            let own = Self.processTimes(postmaster)
        else { return nil }
        let children = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return children.reduce(own.own + own.children) { total, pid in
            guard let times = Self.processTimes(pid), times.parent == postmaster else { return total }
            return total + times.own
        }
    }

    /// The CPU time, in seconds, that process `pid` has used, or `nil` if `/proc` has no such process.
    public static func cpuSeconds(ofProcess pid: Int32) -> Double? { processTimes(pid)?.own }

    /// A process's parent, and its CPU time and that of its children it waited for (`/proc/PID/stat`).
    private static func processTimes(_ pid: Int32) -> (parent: Int32, own: Double, children: Double)? {
        // The command name (field 2) is in parentheses and may hold spaces: the fields are counted after it.
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state): ppid is field 4, utime to cstime fields 14 to 17.
        guard fields.count > 14, let parent = Int32(fields[1]) else { return nil }
        let ticks = fields[11...14].compactMap { Double($0) }
        guard ticks.count == 4 else { return nil }
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (parent, (ticks[0] + ticks[1]) / perSecond, (ticks[2] + ticks[3]) / perSecond)
    }
}
