import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a run found: its lines and failures, printed as they are known (a run killed by a timeout has said what it
/// knew), and the figures of the summary table.
struct RunResult {
    var name: String
    private(set) var failures: [String] = []
    var p50 = Double.nan
    var p99 = Double.nan
    var max = Double.nan
    var cpuPerSecond = Double.nan
    /// The server's CPU seconds over the writes, per write answered 2xx.
    var cpuPerWrite = Double.nan
    /// The server's RSS before the writes, at the end of the warm-up, at the end, and the most sampled between.
    var rssStart = 0
    var rssWarm = 0
    var rssEnd = 0
    var rssMax = 0
    var bytesPerUpdate = Double.nan
    var ratio = Double.nan
    var equal = "?"
    /// The streams that failed to open, failed or ended: each fails the run.
    var dropped = 0
    /// The replicas compared with their query run in SQL, as "equal/checked", or "-" when none were.
    var equalToSQL = "-"

    /// A result named `name`, whose heading is printed now.
    init(name: String) {
        self.name = name
        say("\n\(name):")
    }

    /// Prints `line` now.
    func note(_ line: String) { say("  \(line)") }

    /// Prints `failure` now and fails the run.
    mutating func fail(_ failure: String) {
        failures.append(failure)
        say("  FAILURE: \(failure)")
    }
}

/// Prints `text` and flushes standard output, so that a file or a pipe has it even if the process is killed.
func say(_ text: String) {
    print(text)
    // Every output stream: naming `stdout`, a C global, is not concurrency-safe in Swift 6.
    fflush(nil)
}
