import Foundation

struct Options {
    var rows = 10_000
    var clients = 100
    var rate = 200
    var seconds = 30
    var stores = ["memory", "postgres"]
    var writers = 4
    /// Distinct live queries with filters on project and priority and windows of 20–100, which the clients
    /// share; `nil`: the whole list and one query per project.
    var queries: Int?
    /// The run that kills one of two server processes and resumes its clients on the other.
    var resume = false
    /// The run of three server processes behind nginx, one of them killed under writes.
    var balancer = false
    /// How the servers follow the database: `wal` (the write-ahead log) or `notify`; `nil`: `notify`, and `wal`
    /// for the resume run.
    var changes: String?
    /// Whether the temporary PostgreSQL cluster runs with `fsync` on, as PostgreSQL does by default (the tests'
    /// cluster runs with it off); `--fsync off` for a comparison, or to use `LIVERESULTS_POSTGRES_URL`.
    var fsync = true

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            if argument == "--quick" {
                (rows, clients, rate, seconds) = (2_000, 20, 50, 5)
                continue
            }
            if argument == "--balancer" {
                balancer = true
                stores = ["postgres"]
                (rows, clients, rate, seconds, queries) = (2_000, 300, 50, 9, 20)
                continue
            }
            if argument == "--resume" {
                resume = true
                stores = ["postgres"]
                continue
            }
            let text = iterator.next()
            let value = text.flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
            switch (argument, value, text) {
            case ("--rows", let value?, _): rows = value
            case ("--clients", let value?, _): clients = value
            case ("--rate", let value?, _): rate = value
            case ("--seconds", let value?, _): seconds = value
            case ("--writers", let value?, _): writers = value
            case ("--queries", let value?, _): queries = value
            case ("--changes", _, "wal"), ("--changes", _, "wal-sql"), ("--changes", _, "notify"): changes = text!
            case ("--fsync", _, "on"), ("--fsync", _, "off"): fsync = text == "on"
            case ("--store", _, "memory"): stores = ["memory"]
            case ("--store", _, "postgres"): stores = ["postgres"]
            case ("--store", _, "both"): stores = ["memory", "postgres"]
            default:
                print(
                    """
                    usage: ServerLoad [--rows N] [--clients C] [--rate WRITES_PER_SECOND] [--seconds S] [--writers K]
                                      [--store memory|postgres|both] [--changes notify|wal|wal-sql] [--fsync on|off] [--queries Q]
                                      [--resume] [--balancer] [--quick]
                    """)
                exit(2)
            }
        }
    }

    var writes: Int { rate * seconds }

    /// The live query client `index` follows, as URL parameters.
    ///
    /// With `queries`, query `q` filters on one of the 50 pairs of project and priority and orders by one of four
    /// orders (so up to 200 distinct queries, each a controller of the server), with a window of 20 to 100.
    func query(forClient index: Int) -> String {
        guard let queries else {
            return index.isMultiple(of: 2) ? wholeList : "project=eq.project%20\(index / 2 % 10)&\(wholeList)"
        }
        let query = index % queries
        let pair = query % 50
        let order = ["id.desc", "title.asc", "title.desc", "id.asc"][query / 50 % 4]
        let limit = 20 + 20 * ((query + query / 50) % 5)
        return "project=eq.project%20\(pair % 10)&priority=eq.\(pair / 10)&order=\(order)&limit=\(limit)"
    }
    /// The first part of the writes, after which the server's RSS should stay flat.
    var warmUp: Double { Double(seconds) / 6 }
}
