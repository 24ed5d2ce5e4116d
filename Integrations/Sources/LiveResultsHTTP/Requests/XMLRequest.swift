import Foundation
import XMLCoder

/// A request whose body is XML (`Content-Type: application/xml`), encoded by XMLCoder with the client's
/// ``HTTPCoding/makeXMLEncoder`` under the root element ``rootElement``.
///
/// ```swift
/// struct SendNote: XMLRequest {
///     typealias Response = EmptyResponse
///     @RequestHTTPMethod var method = .post
///     @RequestPath var path = "/notes"
///     var body: Note           // <note><title>…</title></note>
/// }
/// ```
public protocol XMLRequest: APIRequest {
    /// The body's type.
    associatedtype Body: Encodable & Sendable
    /// The body sent.
    var body: Body { get }
    /// The name of the document's root element; the body type's name in lower camel case by default.
    var rootElement: String { get }
}

extension XMLRequest {
    /// The body type's name with a lower-case first letter (`Note` → `note`).
    public var rootElement: String {
        let name = String(describing: Body.self)
        return name.prefix(1).lowercased() + name.dropFirst()
    }

    /// The body as XML.
    public func encodedBody(using coding: HTTPCoding) throws -> EncodedBody? {
        let data = try _encode { try coding.makeXMLEncoder().encode(body, withRootKey: rootElement) }
        return EncodedBody(data, contentType: "application/xml")
    }
}
