import HTTPTypes
import LiveResultsPostgres
import LiveResultsServing
import PostgresNIO

/// A failed database operation, as the server reports it: its cause in full for the log, and the
/// response a client gets.
public struct DatabaseFailure: Sendable {
    /// The error in full: `PSQLError`'s debug description (code, the server's fields, the query), whose
    /// plain description is a generic sentence that says nothing.
    ///
    /// - Complexity: O(1).
    public let cause: String
    /// `503` when the database could not be reached or is shutting down; PostgreSQL's own error, as PostgREST
    /// answers it, when the database refused the request (a foreign key, a constraint); else `500`.
    ///
    /// - Complexity: O(1).
    public let serverError: TodoServerError

    /// The failure `error` is.
    ///
    /// - Complexity: O(*m*) for an error whose description has *m* characters.
    public init(_ error: any Error) {
        cause = Self.describe(error)
        if Self.isUnavailable(error) {
            serverError = .unavailable("the database is unavailable (\(Self.reason(error))); try again later")
        } else if let info = Self.serverInfo(error), let state = info[.sqlState], let message = info[.message] {
            serverError = .postgREST(
                PostgRESTError(sqlState: state, message: message, details: info[.detail], hint: info[.hint]))
        } else {
            serverError = .status(.internalServerError, "the database could not carry out the request")
        }
    }

    /// The server's fields of a PostgreSQL error, also inside a failed transaction.
    static func serverInfo(_ error: any Error) -> PSQLError.ServerInfo? {
        switch error {
        case let error as PSQLError: error.serverInfo
        case let error as PostgresTransactionError: error.closureError.flatMap(serverInfo)
        default: nil
        }
    }

    /// A sentence for a log or a command line, with PostgreSQL's own message.
    ///
    /// - Complexity: O(*m*) for an error whose description has *m* characters.
    public static func describe(_ error: any Error) -> String {
        error is PSQLError ? String(reflecting: error) : String(describing: error)
    }

    /// Why the database could not be reached, in words a client may read: the timeout, PostgreSQL's own
    /// message (`the database system is shutting down`), or the kind of connection failure; never the query.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as PostgresTransactionError:
            return (error.beginError ?? error.closureError ?? error.commitError).map(reason) ?? "\(error)"
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
        case let error as PostgresTransactionError:
            // A transaction fails on its first failure: beginning it, its body, or committing it.
            return [error.beginError, error.closureError, error.commitError].contains { $0.map(isUnavailable) == true }
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
