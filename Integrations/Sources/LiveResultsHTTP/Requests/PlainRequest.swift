import Foundation

/// A request whose body is plain text (`Content-Type: text/plain; charset=utf-8`).
///
/// ```swift
/// struct Echo: PlainRequest {
///     typealias Response = EchoResponse
///     @RequestHTTPMethod var method = .post
///     @RequestPath var path = "/echo"
///     var body = "hello"
/// }
/// ```
public protocol PlainRequest: APIRequest {
    /// The text sent, as UTF-8.
    var body: String { get }
}

extension PlainRequest {
    /// The body as UTF-8 text.
    public func encodedBody(using coding: HTTPCoding) throws -> EncodedBody? {
        EncodedBody(Data(body.utf8), contentType: "text/plain; charset=utf-8")
    }
}
