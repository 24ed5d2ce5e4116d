import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat

/// A stream refused because its routes have ``LiveResultsOptions/maximumStreams`` open (or, for live queries,
/// the most live queries are held, or a query's results could not be fetched): `503` with `Retry-After: 1`.
///
/// On a live-queries route the body is PostgREST's error (`PGRST003` when the route is full, `PGRST000` when
/// the database is out of reach); elsewhere `{"error": "…"}`.
package enum _StreamRefusal {
    /// The refusal: `reason` is what the JSON error says, `postgREST` whether the body is PostgREST's error, with
    /// `code` (`PGRST003` for a full route, `PGRST000` for a database out of reach).
    package static func refusal(
        reason: String = "too many open streams; try again later", postgREST: Bool = false, code: String = "PGRST003"
    ) -> LiveResultsRefusal {
        var headers = HTTPFields()
        headers[.retryAfter] = "1"
        headers[.contentType] = "application/json; charset=utf-8"
        let body =
            postgREST
            ? PostgRESTError(status: 503, code: code, message: reason).body()
            : (try? JSONEncoder().encode(["error": reason])) ?? Data()
        if postgREST { headers[HTTPField.Name("Proxy-Status")!] = "PostgREST; error=\(code)" }
        return .response(
            LiveResultsResponse(status: .serviceUnavailable, headers: headers, body: ByteBuffer(data: body)))
    }
}
