import Foundation

/// An error as PostgREST answers it: an HTTP status and the body `{"code", "message", "details", "hint"}`, with
/// PostgREST's own codes, so that its clients (supabase-js, postgrest-py, supabase-swift) read it unchanged.
///
/// ```swift
/// let error = PostgRESTError.singularity(rows: 0)
/// error.status    // 406
/// error.body()    // {"code":"PGRST116","message":"Cannot coerce the result to a single JSON object",…}
/// ```
///
/// The factories below reproduce PostgREST's messages word for word; ``init(status:code:message:details:hint:headers:)``
/// makes any other.
public struct PostgRESTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status.
    ///
    /// - Complexity: O(1).
    public var status: Int
    /// PostgREST's code (`PGRST116`) or PostgreSQL's SQLSTATE (`42703`).
    ///
    /// - Complexity: O(1).
    public var code: String
    /// The message.
    ///
    /// - Complexity: O(1).
    public var message: String
    /// More about the error, or `nil` (JSON `null`).
    ///
    /// - Complexity: O(1).
    public var details: String?
    /// What to do about it, or `nil` (JSON `null`).
    ///
    /// - Complexity: O(1).
    public var hint: String?
    /// Headers the answer carries besides the body's (`Retry-After` on a `503`).
    ///
    /// - Complexity: O(1).
    public var headers: [String: String]

    /// An error with these fields.
    ///
    /// - Complexity: O(1).
    public init(
        status: Int, code: String, message: String, details: String? = nil, hint: String? = nil,
        headers: [String: String] = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.hint = hint
        self.headers = headers
    }

    /// The code and the message.
    ///
    /// - Complexity: O(1).
    public var description: String { "\(code): \(message)" }

    /// The body: `{"code","message","details","hint"}` in that order, absent details and hint as `null`.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public func body() -> Data {
        var json = "{\"code\":" + Self.quoted(code) + ",\"message\":" + Self.quoted(message)
        json += ",\"details\":" + (details.map(Self.quoted) ?? "null")
        json += ",\"hint\":" + (hint.map(Self.quoted) ?? "null") + "}"
        return Data(json.utf8)
    }

    /// The headers of the answer: JSON, PostgREST's `Proxy-Status` naming the code, and ``headers``.
    ///
    /// - Complexity: O(*h*) for *h* headers.
    public func responseHeaders() -> [(name: String, value: String)] {
        [("Content-Type", "application/json; charset=utf-8"), ("Proxy-Status", "PostgREST; error=\(code)")]
            + headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        // A one-element array is the portable way to have JSONSerialization encode a fragment.
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data()
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}

extension PostgRESTError {
    /// `406 PGRST116`: the client asked for one object (`Accept: application/vnd.pgrst.object+json`) and the
    /// result holds `rows` rows.
    ///
    /// - Complexity: O(1).
    public static func singularity(rows: Int) -> Self {
        Self(
            status: 406, code: "PGRST116", message: "Cannot coerce the result to a single JSON object",
            details: "The result contains \(rows) rows")
    }

    /// `400 PGRST100`: a query parameter that does not parse, with PostgREST's message (`"failed to parse
    /// select parameter (id,)" (line 1, column 4)`) and what was unexpected as the details.
    ///
    /// - Parameters:
    ///   - what: What failed, as PostgREST names it: `select parameter`, `filter`, `order`.
    ///   - text: The parameter's value.
    ///   - column: The 1-based position of the first character that does not fit.
    ///   - details: What was unexpected and what was expected.
    /// - Complexity: O(*m*) for *m* characters.
    public static func parse(_ what: String, text: String, column: Int, details: String) -> Self {
        Self(
            status: 400, code: "PGRST100",
            message: "\"failed to parse \(what) (\(text))\" (line 1, column \(column))", details: details)
    }

    /// `400 PGRST100`: a query parameter the route does not allow, with our reason.
    ///
    /// - Complexity: O(1).
    public static func badParameter(_ message: String, details: String? = nil) -> Self {
        Self(status: 400, code: "PGRST100", message: message, details: details)
    }

    /// `400 42703`: PostgreSQL's undefined column, as PostgREST passes it on: `column todos.x does not exist`.
    ///
    /// - Complexity: O(1).
    public static func undefinedColumn(_ column: String, of table: String) -> Self {
        Self(status: 400, code: "42703", message: "column \(table).\(column) does not exist")
    }

    /// `400 PGRST204`: a write's body names a column the table does not have.
    ///
    /// - Complexity: O(1).
    public static func columnNotFound(_ column: String, of table: String) -> Self {
        Self(
            status: 400, code: "PGRST204",
            message: "Could not find the '\(column)' column of '\(table)' in the schema cache")
    }

    /// `400 PGRST200`: `select=` embeds a resource the route has no relationship to.
    ///
    /// - Parameters:
    ///   - parent: The table embedding.
    ///   - child: The embedded resource's name.
    ///   - hint: The relationship hint (`!fk_name`), if the request gave one.
    ///   - schema: The schema, `public`.
    /// - Complexity: O(1).
    public static func noRelationship(
        between parent: String, and child: String, hint: String? = nil, schema: String = "public"
    ) -> Self {
        Self(
            status: 400, code: "PGRST200",
            message: "Could not find a relationship between '\(parent)' and '\(child)' in the schema cache",
            details: "Searched for a foreign key relationship between '\(parent)' and '\(child)"
                + (hint.map { "' using the hint '\($0)" } ?? "")
                + "' in the schema '\(schema)', but no matches were found.")
    }

    /// `300 PGRST201`: `select=` embeds a resource related to the table by more than one foreign key; a hint
    /// (`people!assignee_id(…)`) picks one.
    ///
    /// - Complexity: O(1).
    public static func ambiguousRelationship(between parent: String, and child: String) -> Self {
        Self(
            status: 300, code: "PGRST201",
            message: "Could not embed because more than one relationship was found for '\(parent)' and '\(child)'",
            hint: "Try changing '\(child)' to '\(child)!COLUMN', naming the foreign key's column.")
    }

    /// `400 PGRST108`: a parameter addresses an embedded resource (`alias.limit`) that `select=` does not embed.
    ///
    /// - Parameters:
    ///   - resource: The name the parameter used.
    ///   - alias: When the resource is embedded under an alias, that alias (the parameter must use it).
    /// - Complexity: O(1).
    public static func notEmbedded(_ resource: String, alias: String? = nil) -> Self {
        guard let alias else {
            return Self(
                status: 400, code: "PGRST108",
                message: "'\(resource)' is not an embedded resource in this request",
                hint: "Verify that '\(resource)' is included in the 'select' query parameter.")
        }
        return Self(
            status: 400, code: "PGRST108", message: "'\(resource)' is not an embedded resource in this request",
            details: "Target names are not allowed in filters if they have an alias",
            hint: "Change '\(resource)' to '\(alias)' in filters, orders or limits.")
    }

    /// `406 PGRST106`: `Accept-Profile` or `Content-Profile` names a schema that is not served.
    ///
    /// - Complexity: O(*s*) for *s* schemas.
    public static func invalidSchema(_ schema: String, served: [String] = ["public"]) -> Self {
        Self(
            status: 406, code: "PGRST106", message: "Invalid schema: \(schema)",
            hint: "Only the following schemas are exposed: \(served.joined(separator: ", "))")
    }

    /// `416 PGRST103`: with `Prefer: count=exact`, an offset past the end of the results.
    ///
    /// - Complexity: O(1).
    public static func rangeNotSatisfiable(offset: Int, total: Int) -> Self {
        Self(
            status: 416, code: "PGRST103", message: "Requested range not satisfiable",
            details: "An offset of \(offset) was requested, but there are only \(total) rows.")
    }

    /// `400 PGRST102`: a write's body that is not what the table takes, with what is wrong.
    ///
    /// - Complexity: O(1).
    public static func invalidBody(_ message: String) -> Self {
        Self(status: 400, code: "PGRST102", message: message)
    }

    /// `400 21000`: an `UPDATE` or `DELETE` without a filter, refused as PostgREST refuses it with
    /// pg-safeupdate: `UPDATE requires a WHERE clause`.
    ///
    /// - Parameter statement: `UPDATE` or `DELETE`.
    /// - Complexity: O(1).
    public static func filterRequired(_ statement: String) -> Self {
        Self(status: 400, code: "21000", message: "\(statement) requires a WHERE clause")
    }

    /// `400 PGRST127`: PostgREST's "Feature not implemented", naming what this server does not do.
    ///
    /// - Complexity: O(1).
    public static func notImplemented(_ details: String) -> Self {
        Self(status: 400, code: "PGRST127", message: "Feature not implemented", details: details)
    }
}
