import Foundation
import LiveResults
import XMLCoder

/// A body that ``ResponseBody`` and ``ResponseErrorBody`` can read. Adopt one of ``JSONDecodable``,
/// ``XMLDecodable``, ``FormURLEncodedDecodable`` or ``PlainDecodable`` (Postie's vocabulary) rather
/// than this.
public protocol ResponseBodyDecodable {
    /// The body read from `data`.
    ///
    /// - Parameters:
    ///   - data: The body's bytes.
    ///   - contentType: The answer's `Content-Type`, if any.
    ///   - coding: The client's decoders.
    static func decode(body data: Data, contentType: String?, coding: HTTPCoding) throws -> Self
}

/// A JSON body, read with the client's ``HTTPCoding/makeJSONDecoder``; an answer whose `Content-Type`
/// is not JSON (`application/json`, `…+json`) throws ``HTTPAPIError/unexpectedContentType(expected:received:)``.
public protocol JSONDecodable: Decodable, ResponseBodyDecodable {}

/// An XML body, read by XMLCoder with the client's ``HTTPCoding/makeXMLDecoder``.
public protocol XMLDecodable: Decodable, ResponseBodyDecodable {}

/// A form body (`application/x-www-form-urlencoded`): its fields by name; a repeated field is an array.
/// Typed values (numbers, booleans) are read from the text by XMLCoder (see the article *HTTP requests*).
public protocol FormURLEncodedDecodable: Decodable, ResponseBodyDecodable {}

/// A plain-text body (UTF-8).
public protocol PlainDecodable: ResponseBodyDecodable {
    /// The value of the text `text`.
    init(plainText text: String) throws
}

extension JSONDecodable {
    /// Decodes JSON.
    public static func decode(body data: Data, contentType: String?, coding: HTTPCoding) throws -> Self {
        try _BodyDecoding.check(contentType, accepting: ["json"], expected: "application/json")
        return try _BodyDecoding.run(Self.self, data) { try coding.makeJSONDecoder().decode(Self.self, from: data) }
    }
}

extension XMLDecodable {
    /// Decodes XML.
    public static func decode(body data: Data, contentType: String?, coding: HTTPCoding) throws -> Self {
        try _BodyDecoding.check(contentType, accepting: ["xml"], expected: "application/xml")
        return try _BodyDecoding.run(Self.self, data) { try coding.makeXMLDecoder().decode(Self.self, from: data) }
    }
}

extension FormURLEncodedDecodable {
    /// Decodes a form.
    public static func decode(body data: Data, contentType: String?, coding: HTTPCoding) throws -> Self {
        try _BodyDecoding.check(contentType, accepting: ["x-www-form-urlencoded"], expected: "a form")
        return try _BodyDecoding.run(Self.self, data) {
            try _FormCoding.decode(
                Self.self, from: String(decoding: data, as: UTF8.self), decoder: coding.makeXMLDecoder())
        }
    }
}

extension PlainDecodable {
    /// Reads the text.
    public static func decode(body data: Data, contentType: String?, coding: HTTPCoding) throws -> Self {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw HTTPAPIError.undecodableBody(
                type: String(describing: Self.self), codingPath: "", reason: "the body is not UTF-8",
                body: HTTPAPIError.excerpt(data))
        }
        return try Self(plainText: text)
    }
}

extension String: PlainDecodable {
    /// The text itself.
    public init(plainText text: String) { self = text }
}

extension Array: ResponseBodyDecodable, JSONDecodable where Element: Decodable {}

extension ResultsUpdate: ResponseBodyDecodable, JSONDecodable {}

/// What every body kind shares: the content-type check and the error that says where decoding failed.
enum _BodyDecoding {
    static func check(_ contentType: String?, accepting kinds: [String], expected: String) throws {
        guard let contentType, !contentType.isEmpty else { return }
        let mediaType = contentType.split(separator: ";")[0].lowercased()
        guard kinds.contains(where: { mediaType.contains($0) }) else {
            throw HTTPAPIError.unexpectedContentType(expected: expected, received: contentType)
        }
    }

    static func run<Value>(_ type: Value.Type, _ data: Data, _ decode: () throws -> Value) throws -> Value {
        let name = String(describing: Value.self)
        guard !data.isEmpty else {
            throw HTTPAPIError.undecodableBody(type: name, codingPath: "", reason: "the body is empty", body: "")
        }
        do {
            return try decode()
        } catch let error as HTTPAPIError {
            throw error
        } catch let error as DecodingError {
            let (path, reason) = describe(error)
            throw HTTPAPIError.undecodableBody(
                type: name, codingPath: path, reason: reason, body: HTTPAPIError.excerpt(data))
        } catch {
            throw HTTPAPIError.undecodableBody(
                type: name, codingPath: "", reason: String(describing: error), body: HTTPAPIError.excerpt(data))
        }
    }

    /// The coding path (`items[3].id`) and the reason of a decoding error.
    static func describe(_ error: DecodingError) -> (path: String, reason: String) {
        let context: DecodingError.Context
        var reason: String
        switch error {
        case .typeMismatch(let type, let errorContext):
            context = errorContext
            reason = "expected \(type)"
        case .valueNotFound(let type, let errorContext):
            context = errorContext
            reason = "no value of \(type)"
        case .keyNotFound(let key, let errorContext):
            context = DecodingError.Context(
                codingPath: errorContext.codingPath + [key], debugDescription: errorContext.debugDescription)
            reason = "missing key \(key.stringValue)"
        case .dataCorrupted(let errorContext):
            context = errorContext
            reason = "corrupted data"
        @unknown default:
            return ("", String(describing: error))
        }
        if !context.debugDescription.isEmpty { reason += " (\(context.debugDescription))" }
        var path = ""
        for key in context.codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return (path, reason)
    }
}
