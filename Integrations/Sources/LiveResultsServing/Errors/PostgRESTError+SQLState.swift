extension PostgRESTError {
    /// PostgreSQL's error as PostgREST passes it on: its SQLSTATE as the code, its message, detail and hint,
    /// with the status PostgREST gives that SQLSTATE.
    ///
    /// ```swift
    /// PostgRESTError(sqlState: "23503", message: "insert or update on table \"todos\" violates …")   // 409
    /// ```
    ///
    /// - Complexity: O(1).
    public init(sqlState: String, message: String, details: String? = nil, hint: String? = nil) {
        self.init(
            status: Self.status(ofSQLState: sqlState, message: message), code: sqlState, message: message,
            details: details, hint: hint)
    }

    /// The status PostgREST answers for a PostgreSQL error: `409` for a foreign key or unique violation, `503`
    /// when the database is out of reach, `500` for the server's own failures, `400` for the rest (an invalid
    /// value, a constraint, an undefined column). `42501` (insufficient privilege) is `403`.
    ///
    /// - Complexity: O(1).
    public static func status(ofSQLState state: String, message: String = "") -> Int {
        switch state {
        case "23503", "23505": return 409
        case "25006": return 405
        case "21000": return message.hasSuffix("requires a WHERE clause") ? 400 : 500
        case "53400", "42P17": return 500
        case "57P01": return 503
        case "42883": return 404
        case "42P01": return 404
        case "42501": return 403
        case "P0001": return 400
        default: break
        }
        switch state.prefix(2) {
        case "08", "53": return 503
        case "0L", "0P", "28": return 403
        case "09", "25", "2D", "38", "39", "3B", "40", "54", "55", "57", "58", "F0", "HV", "P0", "XX": return 500
        default: return 400
        }
    }
}
