import HTTPTypes
import LiveResultsPostgres
import PostgresNIO

/// A failed database operation, as the server reports it: its cause in full for the log, and the
/// response a client gets.
struct DatabaseFailure {
    /// The error in full: `PSQLError`'s debug description (code, the server's fields, the query), whose
    /// plain description is a generic sentence that says nothing.
    let cause: String
    /// `503` when the database could not be reached or is shutting down, else `500`.
    let serverError: TodoServerError

    init(_ error: any Error) {
        cause = Self.describe(error)
        if Self.isUnavailable(error) {
            serverError = .unavailable("the database is unavailable (\(Self.reason(error))); try again later")
        } else {
            serverError = .status(.internalServerError, "the database could not carry out the request")
        }
    }

    /// A sentence for a log or a command line, with PostgreSQL's own message.
    static func describe(_ error: any Error) -> String {
        error is PSQLError ? String(reflecting: error) : String(describing: error)
    }

    /// Why the database could not be reached, in words a client may read: the timeout, PostgreSQL's own
    /// message (`the database system is shutting down`), or the kind of connection failure; never the query.
    static func reason(_ error: any Error) -> String {
        switch error {
        case PostgresLiveTableError.timedOut(let timeout):
            return "it did not answer within \(timeout)"
        case let error as PSQLError:
            return error.serverInfo?[.message] ?? "the connection failed: \(error.code)"
        default:
            return "\(error)"
        }
    }

    /// Whether `error` says the database is out of reach rather than that it refused the request: a
    /// timeout, a failed or lost connection (a `PSQLError` without the server's fields), or the server's
    /// connection exceptions (SQLSTATE class 08), operator intervention (57: shutting down, starting up)
    /// and insufficient resources (53: too many connections).
    static func isUnavailable(_ error: any Error) -> Bool {
        switch error {
        case PostgresLiveTableError.timedOut, PostgresLiveTableError.connectionFailed:
            return true
        case let error as PSQLError:
            guard let state = error.serverInfo?[.sqlState] else { return true }
            return ["08", "53", "57"].contains(String(state.prefix(2)))
        default:
            return false
        }
    }
}
