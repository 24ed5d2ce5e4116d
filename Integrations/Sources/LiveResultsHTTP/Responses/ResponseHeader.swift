/// A header of the answer, found by the property's name: case-insensitively, a camel-cased name
/// matching the dashed one (`contentType` reads `Content-Type`). The strategy says whether it is
/// required and what it becomes.
///
/// ```swift
/// @ResponseHeader<DefaultHeaderStrategy> var authorization: String           // required: throws when absent
/// @ResponseHeader<DefaultHeaderStrategyOptional> var contentType: String?    // optional
/// @ResponseHeader<LinkHeaderStrategy> var link: LinkHeader?                  // parsed
/// ```
@propertyWrapper
public struct ResponseHeader<Strategy: ResponseHeaderStrategy>: Sendable {
    /// The header's value, as the strategy makes it.
    public var wrappedValue: Strategy.Value

    /// A value, for responses made in code.
    public init(wrappedValue: Strategy.Value) {
        self.wrappedValue = wrappedValue
    }
}

extension ResponseHeader: Decodable, _ResponseField {
    /// Read only by ``HTTPAPIClient``.
    public init(from decoder: any Decoder) throws {
        throw _ResponseDecoder.notAResponse(decoder)
    }

    init(response: _ResponseContext, property: String) throws {
        let wanted = Self.folded(property)
        let header = response.response.headers.first { Self.folded($0.name) == wanted }
        wrappedValue = try Strategy.value(header?.value, name: header?.name ?? property)
    }

    /// A name without case, dashes or underscores: `Content-Type`, `content_type` and `contentType` match.
    private static func folded(_ name: String) -> String {
        name.lowercased().filter { $0 != "-" && $0 != "_" }
    }
}

/// What a ``ResponseHeader`` makes of a header's value, and whether the header is required.
public protocol ResponseHeaderStrategy: Sendable {
    /// The property's type.
    associatedtype Value: Sendable
    /// The property's value for the header's value (`nil`: absent).
    ///
    /// - Parameters:
    ///   - value: The header's value, or `nil`.
    ///   - name: The header's name (the property's name when absent), for an error.
    static func value(_ value: String?, name: String) throws -> Value
}

/// A required header, as text: absent, it throws ``HTTPAPIError/missingHeader(_:)``.
public enum DefaultHeaderStrategy: ResponseHeaderStrategy {
    /// The header's value, or an error.
    public static func value(_ value: String?, name: String) throws -> String {
        guard let value else { throw HTTPAPIError.missingHeader(name) }
        return value
    }
}

/// An optional header, as text.
public enum DefaultHeaderStrategyOptional: ResponseHeaderStrategy {
    /// The header's value, or `nil`.
    public static func value(_ value: String?, name: String) throws -> String? { value }
}

/// An optional `Link` header (RFC 8288), parsed: the URL of each relation.
public enum LinkHeaderStrategy: ResponseHeaderStrategy {
    /// The parsed header, or `nil`.
    public static func value(_ value: String?, name: String) throws -> LinkHeader? {
        value.map(LinkHeader.init)
    }
}
