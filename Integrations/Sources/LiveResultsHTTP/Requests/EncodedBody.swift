import Foundation

/// A request's body, encoded: its bytes and their content type.
public struct EncodedBody: Sendable, Equatable {
    /// The bytes sent.
    public var data: Data
    /// The `Content-Type` header sent with them.
    public var contentType: String

    /// Creates a body.
    ///
    /// - Parameters:
    ///   - data: The bytes sent.
    ///   - contentType: Their `Content-Type`.
    public init(_ data: Data, contentType: String) {
        self.data = data
        self.contentType = contentType
    }
}
