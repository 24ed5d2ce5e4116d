struct RunResult {
    var name: String
    var lines: [String] = []
    var failures: [String] = []
    var p50 = Double.nan
    var p99 = Double.nan
    var max = Double.nan
    var cpuPerSecond = Double.nan
    var rssWarm = 0
    var rssEnd = 0
    var bytesPerUpdate = Double.nan
    var ratio = Double.nan
    var equal = "?"
}
