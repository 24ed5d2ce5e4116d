import Foundation
import XMLCoder

/// The encoders and decoders a client uses for bodies: made afresh for each body, so that a client is a
/// value shared by any number of tasks.
///
/// ```swift
/// var coding = HTTPCoding()
/// coding.makeJSONDecoder = {
///     let decoder = JSONDecoder()
///     decoder.dateDecodingStrategy = .iso8601
///     return decoder
/// }
/// let client = HTTPAPIClient(baseURL: url, coding: coding)
/// ```
public struct HTTPCoding: Sendable {
    /// Encodes JSON bodies (and form bodies, encoded as JSON first).
    public var makeJSONEncoder: @Sendable () -> JSONEncoder
    /// Decodes JSON bodies.
    public var makeJSONDecoder: @Sendable () -> JSONDecoder
    /// Encodes XML bodies.
    public var makeXMLEncoder: @Sendable () -> XMLEncoder
    /// Decodes XML bodies (and form bodies, read as a flat XML document).
    public var makeXMLDecoder: @Sendable () -> XMLDecoder

    /// Foundation's and XMLCoder's defaults.
    public init(
        makeJSONEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
        makeJSONDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
        makeXMLEncoder: @escaping @Sendable () -> XMLEncoder = { XMLEncoder() },
        makeXMLDecoder: @escaping @Sendable () -> XMLDecoder = { XMLDecoder() }
    ) {
        self.makeJSONEncoder = makeJSONEncoder
        self.makeJSONDecoder = makeJSONDecoder
        self.makeXMLEncoder = makeXMLEncoder
        self.makeXMLDecoder = makeXMLDecoder
    }
}
