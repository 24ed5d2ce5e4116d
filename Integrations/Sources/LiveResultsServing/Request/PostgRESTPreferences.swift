/// What a request's `Prefer` headers ask for, read as PostgREST reads them: comma-separated preferences, the
/// first of each kind counting, the others ignored.
///
/// ```swift
/// let prefer = PostgRESTPreferences(headers: ["return=representation, count=exact"])
/// prefer.representation   // .full
/// prefer.count            // .exact
/// ```
public struct PostgRESTPreferences: Hashable, Sendable {
    /// `return=`: what a write answers.
    public enum Representation: String, Hashable, Sendable {
        /// `return=representation`: the rows written.
        case full = "representation"
        /// `return=minimal`: no body.
        case minimal
        /// `return=headers-only`: no body (PostgREST adds `Location`).
        case headersOnly = "headers-only"
    }

    /// `count=`: whether the answer counts the rows.
    public enum Count: String, Hashable, Sendable {
        /// `count=exact`.
        case exact
        /// `count=planned`: PostgreSQL's estimate; answered here as `exact` (the results are held).
        case planned
        /// `count=estimated`: answered here as `exact`.
        case estimated
    }

    /// `return=`, or `nil`.
    ///
    /// - Complexity: O(1).
    public var representation: Representation?
    /// `count=`, or `nil`.
    ///
    /// - Complexity: O(1).
    public var count: Count?
    /// `resolution=merge-duplicates` or `ignore-duplicates` (an upsert), as written, or `nil`.
    ///
    /// - Complexity: O(1).
    public var resolution: String?

    /// The preferences of `headers`, each the value of one `Prefer` header.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public init(headers: some Sequence<String>) {
        for preference in headers.flatMap({ $0.split(separator: ",") }) {
            let preference = String(preference).trimmingSpaces()
            if representation == nil, preference.hasPrefix("return=") {
                representation = Representation(rawValue: String(preference.dropFirst(7)))
            } else if count == nil, preference.hasPrefix("count=") {
                count = Count(rawValue: String(preference.dropFirst(6)))
            } else if resolution == nil, preference.hasPrefix("resolution=") {
                resolution = String(preference.dropFirst(11))
            }
        }
    }

    /// Whether the answer counts all the rows (`count=exact`, or the estimates, which this server gives
    /// exactly).
    ///
    /// - Complexity: O(1).
    public var countsRows: Bool { count != nil }

    /// `Preference-Applied`'s value: the preferences this answer honoured, in PostgREST's order.
    ///
    /// - Parameter write: Whether the answer is a write's (`return=` applies to writes only).
    /// - Complexity: O(1).
    public func applied(write: Bool) -> String? {
        let values = [
            write ? representation.map { "return=\($0.rawValue)" } : nil, count.map { "count=\($0.rawValue)" },
        ]
        .compactMap { $0 }
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
