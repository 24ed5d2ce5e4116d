import Foundation

/// A request whose body is a form (`Content-Type: application/x-www-form-urlencoded`): the body's
/// top-level fields as `name=value` pairs, an array as one pair per element, `nil` fields omitted.
///
/// ```swift
/// struct Login: FormURLEncodedRequest {
///     typealias Response = LoginResponse
///     @RequestHTTPMethod var method = .post
///     @RequestPath var path = "/login"
///     var body: Credentials      // user=ann&password=s%26cret
/// }
/// ```
///
/// The body is encoded as JSON first (with the client's ``HTTPCoding/makeJSONEncoder``, so its key and
/// date strategies apply), then flattened; a nested object cannot be a form field and throws
/// ``HTTPAPIError/unencodableBody(_:)``.
public protocol FormURLEncodedRequest: APIRequest {
    /// The body's type: a flat `Encodable` struct.
    associatedtype Body: Encodable & Sendable
    /// The body sent.
    var body: Body { get }
}

extension FormURLEncodedRequest {
    /// The body as a form.
    public func encodedBody(using coding: HTTPCoding) throws -> EncodedBody? {
        let json = try _encode { try coding.makeJSONEncoder().encode(body) }
        let pairs = try _FormCoding.pairs(fromJSON: json, decoder: coding.makeJSONDecoder())
        return EncodedBody(Data(_FormCoding.encode(pairs).utf8), contentType: "application/x-www-form-urlencoded")
    }
}

/// Runs an encoder, and says what failed when it throws.
func _encode(_ encode: () throws -> Data) throws -> Data {
    do {
        return try encode()
    } catch let error as HTTPAPIError {
        throw error
    } catch {
        throw HTTPAPIError.unencodableBody(String(describing: error))
    }
}
