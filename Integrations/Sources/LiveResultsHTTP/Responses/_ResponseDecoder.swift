import Foundation

/// A response wrapper: it reads its value from the answer.
protocol _ResponseField {
    /// Reads the wrapper's value; `property` is the name of the property that holds it.
    init(response: _ResponseContext, property: String) throws
}

/// One answer being read into a response type, and what its wrappers learned of it.
final class _ResponseContext {
    let response: HTTPTransportResponse
    let coding: HTTPCoding
    /// Whether the response type has a ``ResponseErrorBody``: then a failed status is an answer.
    var readsErrorBody = false

    init(response: HTTPTransportResponse, coding: HTTPCoding) {
        self.response = response
        self.coding = coding
    }

    /// 2xx or 3xx.
    var isSuccess: Bool { (200..<400).contains(response.status) }

    func decode<Response: Decodable>(_ type: Response.Type) throws -> Response {
        do {
            return try Response(from: _ResponseDecoder(context: self))
        } catch let error as DecodingError {
            let (path, reason) = _BodyDecoding.describe(error)
            throw HTTPAPIError.undecodableBody(
                type: String(describing: Response.self), codingPath: path, reason: reason,
                body: HTTPAPIError.excerpt(response.body))
        }
    }

    func body<Body: ResponseBodyDecodable>(_ type: Body.Type) throws -> Body {
        try Body.decode(body: response.body, contentType: response.headers.value(named: "Content-Type"), coding: coding)
    }
}

/// The `Decoder` that a response type's synthesized `init(from:)` reads: each property is a wrapper that
/// reads itself from the answer.
struct _ResponseDecoder: Decoder {
    let context: _ResponseContext
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(_ResponseContainer<Key>(context: context))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw Self.onlyWrappers(codingPath: [])
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw Self.onlyWrappers(codingPath: [])
    }

    static func onlyWrappers(codingPath: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(
            Any.self,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "a response's properties are @ResponseBody, @ResponseErrorBody, @ResponseHeader, "
                    + "@ResponseStatusCode or @NestedResponse"))
    }

    static func notAResponse(_ decoder: any Decoder) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "response wrappers are read by HTTPAPIClient only"))
    }
}

/// The properties of a response type: every key is there, and only wrappers decode.
struct _ResponseContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let context: _ResponseContext
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let field = T.self as? any _ResponseField.Type,
            let value = try field.init(response: context, property: key.stringValue) as? T
        else { throw _ResponseDecoder.onlyWrappers(codingPath: [key]) }
        return value
    }

    private func unsupported<T>(_ key: Key) throws -> T { throw _ResponseDecoder.onlyWrappers(codingPath: [key]) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try unsupported(key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try unsupported(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try unsupported(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try unsupported(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try unsupported(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try unsupported(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try unsupported(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try unsupported(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try unsupported(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try unsupported(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try unsupported(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try unsupported(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try unsupported(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try unsupported(key) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try unsupported(key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try unsupported(key) }
    func superDecoder() throws -> any Decoder { _ResponseDecoder(context: context) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try unsupported(key) }
}
