/// An HTTP method, as ``RequestHTTPMethod`` holds it.
///
/// ```swift
/// @RequestHTTPMethod var method = .patch
/// ```
public struct RequestMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method's name as sent: `GET`, `POST`…
    public var rawValue: String

    /// A method by name (upper case, as sent).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A method by name.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The method's name.
    public var description: String { rawValue }

    /// `GET`.
    public static let get: RequestMethod = "GET"
    /// `POST`.
    public static let post: RequestMethod = "POST"
    /// `PUT`.
    public static let put: RequestMethod = "PUT"
    /// `PATCH`.
    public static let patch: RequestMethod = "PATCH"
    /// `DELETE`.
    public static let delete: RequestMethod = "DELETE"
    /// `HEAD`.
    public static let head: RequestMethod = "HEAD"
    /// `OPTIONS`.
    public static let options: RequestMethod = "OPTIONS"
}
