import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The server's CPU time (user + system) and resident set, from /proc.
struct Usage {
    var cpu: Double
    var rss: Int

    init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        else { return nil }
        // After "pid (comm)": field 3 is the state; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        cpu = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        rss = (line?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1_024
    }
}
