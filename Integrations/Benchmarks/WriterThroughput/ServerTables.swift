import Foundation

/// A table's cells: each lists the rounds' values in order; the ratios compare runs of the same round.
struct ServerTableCells {
    let results: [ServerRunKind: [ServerMeasurement]]

    func cells(_ kind: ServerRunKind, _ value: (ServerMeasurement) -> String) -> String {
        (results[kind] ?? []).map(value).joined(separator: "; ")
    }

    /// `kind`'s TPS over `baseline`'s (a single process) in the same round.
    func ratios(_ kind: ServerRunKind, to baseline: Follower) -> String {
        guard let base = results[ServerRunKind(follower: baseline)] else { return "–" }
        return zip(results[kind] ?? [], base).map { String(format: "%.2f", $0.tps / $1.tps) }.joined(separator: "; ")
    }

    /// Microseconds of CPU per change: `seconds` of each round's measurement over its transactions.
    func micros(_ kind: ServerRunKind, _ seconds: @escaping (ServerMeasurement) -> Double) -> String {
        cells(kind) { String(format: "%.1f", $0.perChange(seconds($0))) }
    }
}

/// The table of every run: each cell lists the rounds' values in order; the ratios compare runs of the same round.
func printServerTable(_ results: [ServerRunKind: [ServerMeasurement]], kinds: [ServerRunKind]) {
    let table = ServerTableCells(results: results)
    print(
        "\nEach cell: the rounds in order. µs/change: CPU from pgbench's start until the follower is idle again / "
            + "pgbench's transactions (a row each); commits: the database's xact_commit over pgbench's run.")
    print(
        "| transport | tps | commits | server µs/change | (during pgbench only) | walsender µs/change "
            + "| server's backends µs/change | cluster µs/change | vs none | vs pg_recvlogical | busy after pgbench, s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in kinds {
        let isFollowed = kind.follower != .none
        let hasWalsender = isFollowed && kind.follower != .trigger
        print(
            "| \(kind.label) | \(table.cells(kind) { String(format: "%.0f", $0.tps) }) "
                + "| \(table.cells(kind) { "\($0.commits)" }) | \(isFollowed ? table.micros(kind, \.follower) : "–") "
                + "| \(isFollowed ? table.micros(kind, \.followerInRun) : "–") "
                + "| \(hasWalsender ? table.micros(kind, \.walsender) : "–") "
                + "| \(isFollowed ? table.micros(kind, \.backends) : "–") | \(table.micros(kind, \.cluster)) "
                + "| \(table.ratios(kind, to: .none)) | \(table.ratios(kind, to: .recvlogical)) "
                + "| \(isFollowed ? table.cells(kind) { String(format: "%.1f", $0.catchUp) } : "–") |")
    }
}

/// The table of `--processes`: per count of server processes following the table with `--changes wal`, the
/// writers' TPS, against no follower and `pg_recvlogical` in the same round, the CPU per change of the servers (their
/// sum, then each's) and of their walsenders, and the most replication slots and walsenders in use at once.
func printProcessesTable(_ results: [ServerRunKind: [ServerMeasurement]], processes: [Int]) {
    let table = ServerTableCells(results: results)
    print(
        "\nServer processes following the table with --changes wal, each with its own slot and one stream client. "
            + "Each cell: the rounds in order.")
    print(
        "| processes | tps | vs none | vs pg_recvlogical | servers µs/change: sum (each) | walsenders µs/change, sum "
            + "| slots; walsenders in use |")
    print("|---|---|---|---|---|---|---|")
    for count in processes {
        let kind = ServerRunKind(follower: .stream, processes: count)
        let servers = table.cells(kind) { measured in
            let each = measured.perProcess.map { String(format: "%.1f", measured.perChange($0)) }
            return String(format: "%.1f", measured.perChange(measured.follower))
                + (each.count > 1 ? " (\(each.joined(separator: ", ")))" : "")
        }
        print(
            "| \(count) | \(table.cells(kind) { String(format: "%.0f", $0.tps) }) | \(table.ratios(kind, to: .none)) "
                + "| \(table.ratios(kind, to: .recvlogical)) | \(servers) | \(table.micros(kind, \.walsender)) "
                + "| \(table.cells(kind) { "\($0.replication.slots); \($0.replication.walsenders)" }) |")
    }
}
