import ArgumentParser
import Foundation
import TodoServer

/// ServerLoad's command line, read with swift-argument-parser (`--help` lists it; a bad value exits with status 64).
///
/// `--quick` and `--balancer` are presets of rows, clients, rate and seconds (and `--balancer` of queries): an option
/// given wins over them, and `--balancer`'s over `--quick`'s.
struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ServerLoad",
        abstract: "The server example under many stream clients, a poller and REST writes.",
        discussion: """
            Exits with status 1 when a run fails (a replica that differs from GET /todos, a client that did not \
            resume), 64 for a refused option.
            """)

    /// Which stores a load run serves from.
    enum Store: String, ExpressibleByArgument, CaseIterable {
        case memory, postgres, both
    }

    /// On or off.
    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @Option(name: .customLong("rows"), help: "Rows seeded (10000; --quick and --balancer: 2000; --idle-streams: 100).")
    var givenRows: Int?
    @Option(name: .customLong("clients"), help: "Stream clients (100; --quick: 20; --balancer: 300).")
    var givenClients: Int?
    @Option(
        name: .customLong("rate"),
        help: ArgumentHelp("Writes per second (200; --quick and --balancer: 50).", valueName: "writes-per-second"))
    var givenRate: Int?
    @Option(name: .customLong("seconds"), help: "Seconds of writes (30; --quick: 5; --balancer: 9).")
    var givenSeconds: Int?
    @Option(help: "Writer tasks.")
    var writers = 4
    /// Distinct live queries with filters on project and priority (and past 200 on `id`) and windows of 20–100,
    /// which the clients share; `nil`: the whole list and one query per project.
    @Option(
        name: .customLong("queries"),
        help: """
            Distinct live queries the clients share, windows of 20–100 rows, up to \(Options.maximumQueries) \
            (none: the whole list and one per project; --balancer: 20).
            """)
    var givenQueries: Int?
    /// Whether a load run's poller fetches the whole list every second beside the streams; `--poller off` measures
    /// the streams alone.
    @Option(
        name: .customLong("poller"),
        help: "A load run's poller of the whole list, every second; off: the streams alone.")
    var pollerSwitch = Switch.on
    @Option(name: .customLong("store"), help: "The stores a load run serves from.")
    var store = Store.both
    /// How the servers follow the database: `wal` (the write-ahead log) or `notify`; `nil`: `notify`, and `wal`
    /// for the resume run.
    @Option(help: "How the servers follow the database (notify; wal for --resume and --balancer).")
    var changes: PostgresTodoStore.Changes?
    /// Whether the temporary PostgreSQL cluster runs with `fsync` on, as PostgreSQL does by default (the tests'
    /// cluster runs with it off); `--fsync off` for a comparison, or to use `LIVERESULTS_POSTGRES_URL`.
    @Option(
        name: .customLong("fsync"),
        help: "fsync of a cluster of its own; off uses LIVERESULTS_POSTGRES_URL or the tests' cluster.")
    var fsyncSwitch = Switch.on
    /// The run that kills one of two server processes and resumes its clients on the other.
    @Flag(help: "Two server processes on one database; one is killed and its clients resume on the other.")
    var resume = false
    /// The run of three server processes behind nginx, one of them killed under writes.
    @Flag(help: "Three server processes behind nginx, one killed under writes.")
    var balancer = false
    /// The run that measures what an idle stream costs the server: this many streams held open, per shape.
    @Option(
        name: .customLong("idle-streams"),
        help: "Hold this many idle streams on a server in memory, in three shapes, and report its RSS per stream.")
    var idleStreams: Int?
    /// The server example's executables, beside this one, run in turn: Hummingbird's, Vapor's, or both.
    @Option(
        help: """
            The server example's executable beside this one: LiveResultsServer or LiveResultsVaporServer \
            (repeatable: each in turn, one table).
            """)
    var server: [String] = ["LiveResultsServer"]
    /// The executable of this run: the first of `server` (`main` runs each in turn).
    var executable: String { server.first ?? "LiveResultsServer" }
    @Flag(help: "The CI smoke run: 2000 rows, 20 clients, 50 writes/s for 5 s.")
    var quick = false

    var rows: Int { givenRows ?? (idleStreams != nil ? 100 : balancer || quick ? 2_000 : 10_000) }
    var clients: Int { givenClients ?? (balancer ? 300 : quick ? 20 : 100) }
    var rate: Int { givenRate ?? (balancer || quick ? 50 : 200) }
    var seconds: Int { givenSeconds ?? (balancer ? 9 : quick ? 5 : 30) }
    var queries: Int? { givenQueries ?? (balancer ? 20 : nil) }
    var fsync: Bool { fsyncSwitch == .on }
    var poll: Bool { pollerSwitch == .on }
    /// The stores of the run: PostgreSQL alone for `--resume` and `--balancer`.
    var stores: [String] {
        if resume || balancer { return ["postgres"] }
        if idleStreams != nil { return ["memory"] }
        return store == .both ? ["memory", "postgres"] : [store.rawValue]
    }

    func validate() throws {
        let counts = [
            ("--rows", givenRows), ("--clients", givenClients), ("--rate", givenRate), ("--seconds", givenSeconds),
            ("--writers", writers), ("--queries", givenQueries), ("--idle-streams", idleStreams),
        ]
        for case (let name, let value?) in counts where value < 1 {
            throw ValidationError("\(name) wants a whole number above 0, not \(value)")
        }
        if let givenQueries, givenQueries > Self.maximumQueries {
            throw ValidationError("--queries goes up to \(Self.maximumQueries), not \(givenQueries)")
        }
    }

    var writes: Int { rate * seconds }

    /// The most distinct queries `--queries` gives: 200 filters on project and priority and orders, each alone
    /// and with four bounds on `id`.
    static let maximumQueries = 1_000

    /// The live query client `index` follows, as URL parameters.
    ///
    /// With `queries`, query `q` filters on one of the 50 pairs of project and priority and orders by one of four
    /// orders, with a window of 20 to 100: 200 distinct queries, each a controller of the server. Past 200, each
    /// of those again with a bound on `id` at a fifth, two, three or four fifths of the seeded rows (the rows
    /// above it for an ascending order, below it for a descending one, so that the window shows other rows),
    /// up to 1,000. The first 200 stay as they were, so that runs of up to 200 queries compare with earlier ones.
    func query(forClient index: Int) -> String {
        guard let queries else {
            return index.isMultiple(of: 2) ? wholeList : "project=eq.project%20\(index / 2 % 10)&\(wholeList)"
        }
        let query = index % queries
        let pair = query % 50
        let order = ["id.desc", "title.asc", "title.desc", "id.asc"][query / 50 % 4]
        let limit = 20 + 20 * ((query + query / 50) % 5)
        let fifth = query / 200
        let bound =
            fifth == 0 ? "" : "id=\(order.hasSuffix(".asc") ? "gt" : "lt").\(rows * fifth / 5)&"
        return "project=eq.project%20\(pair % 10)&priority=eq.\(pair / 10)&\(bound)order=\(order)&limit=\(limit)"
    }

    /// The server's limits for the run: windows as large as the whole list, and streams and live queries enough
    /// for every client, the queries held on each process, the poller and a margin (the server's defaults are
    /// 1,000 of each).
    var serverLimits: [String] {
        let liveQueries = (queries ?? 11) + 16
        return [
            "--maximum-limit", "\(maximumLimit)", "--maximum-streams", "\(clients + liveQueries)",
            "--maximum-queries", "\(liveQueries)",
        ]
    }
    /// The first part of the writes, after which the server's RSS should stay flat.
    var warmUp: Double { Double(seconds) / 6 }
}
