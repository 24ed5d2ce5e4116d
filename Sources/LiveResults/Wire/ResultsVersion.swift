/// Names one version of a controller's results: the results after one delivered change set.
///
/// A version is opaque. It names the controller instance that made it, so a version from another
/// controller (another server process, or the same one restarted) is never mistaken for one of this
/// controller's. Its string form, ``description``, is what a URL's `?since=` and Server-Sent Events'
/// `id:` / `Last-Event-ID` carry; ``init(_:)`` reads it back.
///
/// ```swift
/// let version = ResultsVersion(request.headers["Last-Event-ID"] ?? "")   // nil when unparsable
/// for await update in controller.updates(since: version) { … }
/// ```
public struct ResultsVersion: Hashable, Sendable {
    /// The controller instance that made the version: random, so that instances never share versions.
    @usableFromInline let origin: UInt64
    /// The number of change sets that controller delivered before this version.
    @usableFromInline let sequence: UInt64

    @inlinable init(origin: UInt64, sequence: UInt64) {
        self.origin = origin
        self.sequence = sequence
    }
}

extension ResultsVersion: LosslessStringConvertible {
    /// The version's string form: sixteen hexadecimal digits naming the controller, a dash, and a
    /// decimal counter, such as `"3f09c2b4a17e55d0-42"`. Treat it as opaque.
    ///
    /// - Complexity: O(1).
    public var description: String {
        let digits = String(origin, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits + "-" + String(sequence)
    }

    /// Reads a version from its string form.
    ///
    /// - Parameter description: A string made by ``description``.
    /// - Returns: `nil` when the string is not a version's string form.
    /// - Complexity: O(*m*) for a string of *m* characters.
    public init?(_ description: String) {
        let utf8 = description.utf8
        guard utf8.count <= 16 + 1 + 20, let dash = utf8.firstIndex(of: UInt8(ascii: "-")),
            utf8.distance(from: utf8.startIndex, to: dash) == 16
        else { return nil }
        let originPart = description[..<dash]
        let sequencePart = description[utf8.index(after: dash)...]
        guard originPart.utf8.allSatisfy(Self.isLowercaseHexDigit),
            !sequencePart.isEmpty, sequencePart.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let origin = UInt64(originPart, radix: 16), let sequence = UInt64(sequencePart)
        else { return nil }
        self.init(origin: origin, sequence: sequence)
    }

    private static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }
}

extension ResultsVersion: Codable {
    /// Reads a version from its string form.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a version.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let version = ResultsVersion(string) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(string.prefix(64))\" is not a results version")
        }
        self = version
    }

    /// Writes the version as its string form.
    ///
    /// - Complexity: O(1).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
