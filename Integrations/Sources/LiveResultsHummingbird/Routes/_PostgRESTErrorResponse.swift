import Foundation
import HTTPTypes
import Hummingbird
import LiveResultsServing
import NIOFoundationCompat

/// A ``PostgRESTError`` as Hummingbird's response: its status, headers and body.
struct _PostgRESTErrorResponse: HTTPResponseError {
    let error: PostgRESTError

    init(_ error: PostgRESTError) {
        self.error = error
    }

    var status: HTTPResponse.Status { HTTPResponse.Status(code: error.status) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        _PostgRESTResponse.response(PostgRESTAnswer.error(error))
    }
}
