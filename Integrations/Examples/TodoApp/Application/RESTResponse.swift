import Foundation
import HTTPTypes

/// An answer to a write, whatever the framework that sends it: its status, headers and body.
public struct RESTResponse: Sendable, Equatable {
    /// The status.
    public var status: HTTPResponse.Status
    /// The headers, `Content-Type` among them when there is a body.
    public var headers: HTTPFields
    /// The body; `nil` for none (`204`).
    public var body: Data?

    /// An answer of these parts.
    ///
    /// - Complexity: O(1).
    public init(status: HTTPResponse.Status, headers: HTTPFields = HTTPFields(), body: Data? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
