import ArgumentParser

/// WriterThroughput's command line, read with swift-argument-parser (`--help` lists it; a bad value exits with
/// status 64).
///
/// `--quick` is a preset of rows, seconds and rounds: an option given wins over it.
struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "WriterThroughput",
        abstract: "What a live source costs the writers of a table: pgbench's TPS with and without one.",
        discussion: """
            Without --server: pgbench with no live source, the trigger and LISTEN, the WAL feed over SQL and as a \
            replication stream, with 1 and then 8 clients. With --server: what following the table costs the server \
            example, against pg_recvlogical; --processes 1,2,4 runs its wal follower with that many processes at \
            once. Exits with status 1 when a run fails (a follower that does not equal SELECT), 64 for a refused \
            option.
            """)

    @Option(name: .customLong("rows"), help: "Rows in the table (100000; --quick: 2000).")
    var givenRows: Int?
    @Option(name: .customLong("seconds"), help: "Seconds of pgbench per run (20; --quick: 2).")
    var givenSeconds: Int?
    @Option(name: .customLong("rounds"), help: "Rounds of every mode, alternating (2; --quick: 1).")
    var givenRounds: Int?
    /// The server example's executable: what following the table costs it, against `pg_recvlogical`.
    @Option(
        help: ArgumentHelp(
            "The server example's executable (a release build, for figures): measure it, against pg_recvlogical.",
            valueName: "path"))
    var server: String?
    /// With `--server`: pgbench's clients.
    @Option(name: .customLong("clients"), help: "With --server: pgbench's clients.")
    var serverClients = 8
    /// With `--server`: the followers run in turn, in this order; `nil`: all of them.
    @Option(
        name: .customLong("only"),
        help: ArgumentHelp(
            "With --server: the followers to run, in turn (none,pg_recvlogical,wal,wal-sql,notify).",
            valueName: "followers"),
        transform: Options.followers(from:))
    var givenFollowers: [Follower]?
    /// With `--server`: the numbers of server processes that follow the table with `--changes wal`, in turn; `nil`:
    /// one.
    @Option(
        name: .customLong("processes"),
        help: ArgumentHelp(
            "With --server: the numbers of server processes following the table with --changes wal, in turn (1).",
            valueName: "counts"),
        transform: Options.processCounts(from:))
    var givenProcesses: [Int]?
    @Flag(help: "The CI smoke run: 2000 rows, 2 s per run, 1 round.")
    var quick = false

    var rows: Int { givenRows ?? (quick ? 2_000 : 100_000) }
    var seconds: Int { givenSeconds ?? (quick ? 2 : 20) }
    var rounds: Int { givenRounds ?? (quick ? 1 : 2) }
    var followers: [Follower] { givenFollowers ?? Follower.allCases }
    var processes: [Int] { givenProcesses ?? [1] }

    func validate() throws {
        let counts = [
            ("--rows", givenRows), ("--seconds", givenSeconds), ("--rounds", givenRounds), ("--clients", serverClients),
        ]
        for case (let name, let value?) in counts where value < 1 {
            throw ValidationError("\(name) wants a whole number above 0, not \(value)")
        }
        if givenProcesses != nil {
            guard server != nil, followers.contains(.stream) else {
                throw ValidationError("--processes counts the processes of --server's wal follower")
            }
        }
    }

    /// The followers of `--only`: names separated by commas, each one of `Follower`'s.
    private static func followers(from text: String) throws -> [Follower] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false)
        return try names.map { name in
            guard let follower = Follower(rawValue: String(name)) else {
                let known = Follower.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--only: no follower named '\(name)' (the followers: \(known))")
            }
            return follower
        }
    }

    /// The counts of `--processes`: whole numbers above 0 separated by commas, each once.
    private static func processCounts(from text: String) throws -> [Int] {
        let counts = try text.split(separator: ",", omittingEmptySubsequences: false).map { count in
            guard let value = Int(count), value >= 1 else {
                throw ValidationError("--processes: '\(count)' is not a whole number above 0")
            }
            return value
        }
        guard Set(counts).count == counts.count else {
            throw ValidationError("--processes: '\(text)' names a count twice")
        }
        return counts
    }
}
