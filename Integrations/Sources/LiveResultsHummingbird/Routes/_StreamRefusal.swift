import Foundation
import HTTPTypes
import Hummingbird

/// A stream refused because its routes have ``LiveResultsOptions/maximumStreams`` open: `503` with
/// `Retry-After: 1`.
struct _StreamRefusal: HTTPResponseError {
    var status: HTTPResponse.Status { .serviceUnavailable }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.retryAfter] = "1"
        headers[.contentType] = "application/json; charset=utf-8"
        let body = #"{"error":"too many open streams; try again later"}"#
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
