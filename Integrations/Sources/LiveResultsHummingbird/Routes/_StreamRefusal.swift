import Foundation
import HTTPTypes
import Hummingbird
import NIOFoundationCompat

/// A stream refused because its routes have ``LiveResultsOptions/maximumStreams`` open (or, for live queries,
/// the most live queries are held, or a query's results could not be fetched): `503` with `Retry-After: 1`.
struct _StreamRefusal: HTTPResponseError {
    /// What the JSON error says.
    var reason = "too many open streams; try again later"

    var status: HTTPResponse.Status { .serviceUnavailable }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.retryAfter] = "1"
        headers[.contentType] = "application/json; charset=utf-8"
        let body = try JSONEncoder().encode(["error": reason])
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
    }
}
