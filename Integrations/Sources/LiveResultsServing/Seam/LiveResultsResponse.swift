import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat

/// A complete answer of a live route, for a framework adapter to send as it is: status, headers, body.
package struct LiveResultsResponse: Sendable {
    /// The status.
    package var status: HTTPResponse.Status
    /// The headers, in order.
    package var headers: HTTPFields
    /// The body; `nil` for none (a `304`).
    package var body: ByteBuffer?

    /// A response of these parts.
    ///
    /// - Complexity: O(1).
    package init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// PostgREST's answer as a response.
    ///
    /// - Complexity: O(*b*) for a body of *b* bytes.
    package init(_ answer: PostgRESTAnswer) {
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
        }
        self.init(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: answer.body.map { ByteBuffer(data: $0) })
    }
}
