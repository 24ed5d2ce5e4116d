import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat

/// Why a live route refuses a request, as an error the core throws and an adapter answers.
package enum LiveResultsRefusal: Error, Sendable {
    /// A plain refusal, a status and a message (a bad `?limit=`, a WebSocket route asked without an upgrade):
    /// an adapter answers it as its framework answers its own errors of that status, so that an application's
    /// error middleware sees it as one of them.
    case message(HTTPResponse.Status, String)
    /// A refusal whose response is written already: PostgREST's error body, a stream refused with `Retry-After`.
    case response(LiveResultsResponse)

    /// PostgREST's error as a refusal.
    ///
    /// - Complexity: O(1).
    package static func postgREST(_ error: PostgRESTError) -> Self {
        .response(LiveResultsResponse(PostgRESTAnswer.error(error)))
    }

    /// The status.
    ///
    /// - Complexity: O(1).
    package var status: HTTPResponse.Status {
        switch self {
        case .message(let status, _): status
        case .response(let response): response.status
        }
    }

    /// The response as written: a ``message(_:_:)`` as Hummingbird writes its errors with its default encoder,
    /// `{"error":{"message":"…"}}`, so that every adapter sends the same bytes.
    ///
    /// - Complexity: O(*m*) for a message of *m* bytes.
    package var response: LiveResultsResponse {
        switch self {
        case .response(let response):
            return response
        case .message(let status, let message):
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            // A dictionary of one key encodes as the struct Hummingbird encodes: no order to differ.
            let body = (try? JSONEncoder().encode(["error": ["message": message]])) ?? Data()
            return LiveResultsResponse(status: status, headers: headers, body: ByteBuffer(data: body))
        }
    }
}
