import Foundation
import HTTPTypes
import Hummingbird
import LiveResultsServing
import NIOFoundationCompat

/// A stream refused because its routes have ``LiveResultsOptions/maximumStreams`` open (or, for live queries,
/// the most live queries are held, or a query's results could not be fetched): `503` with `Retry-After: 1`.
///
/// On a live-queries route the body is PostgREST's error (`PGRST003` when the route is full, `PGRST000` when
/// the database is out of reach); elsewhere `{"error": "…"}`.
struct _StreamRefusal: HTTPResponseError {
    /// What the JSON error says.
    var reason = "too many open streams; try again later"
    /// Whether the answer is PostgREST's error body.
    var postgREST = false
    /// The PostgREST code: `PGRST003` for a full route, `PGRST000` for a database out of reach.
    var code = "PGRST003"

    var status: HTTPResponse.Status { .serviceUnavailable }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.retryAfter] = "1"
        headers[.contentType] = "application/json; charset=utf-8"
        let body =
            postgREST
            ? PostgRESTError(status: 503, code: code, message: reason).body()
            : try JSONEncoder().encode(["error": reason])
        if postgREST { headers[HTTPField.Name("Proxy-Status")!] = "PostgREST; error=\(code)" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
    }
}
