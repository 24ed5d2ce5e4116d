/// What a request asks the answer to be, by its `Accept` header.
///
/// ```swift
/// PostgRESTFormat(accept: "application/vnd.pgrst.object+json")   // .object
/// PostgRESTFormat(accept: "application/vnd.liveresults+json")    // .liveResults
/// PostgRESTFormat(accept: nil)                                   // .array
/// ```
public enum PostgRESTFormat: Hashable, Sendable {
    /// A JSON array of rows: PostgREST's answer, for any `Accept` but the two below.
    case array
    /// One JSON object (`application/vnd.pgrst.object+json`, or `application/vnd.pgrst.object`), or `406`
    /// `PGRST116` when the result has another number of rows.
    case object
    /// LiveResults' versioned whole results (`application/vnd.liveresults+json`): a `ResultsUpdate`, with its
    /// version as the entity tag.
    case liveResults

    /// The media type of LiveResults' versioned whole results.
    public static let liveResultsMediaType = "application/vnd.liveresults+json"

    /// The format `accept` asks for: the first of its media types that names one of the two above, else
    /// ``array``.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public init(accept: String?) {
        for range in (accept ?? "").split(separator: ",") {
            let mediaType = range.split(separator: ";").first.map { String($0).trimmingSpaces().lowercased() } ?? ""
            switch mediaType {
            case "application/vnd.pgrst.object+json", "application/vnd.pgrst.object":
                self = .object
                return
            case Self.liveResultsMediaType:
                self = .liveResults
                return
            default:
                continue
            }
        }
        self = .array
    }

    /// The answer's `Content-Type`.
    ///
    /// - Complexity: O(1).
    public var contentType: String {
        switch self {
        case .array: "application/json; charset=utf-8"
        case .object: "application/vnd.pgrst.object+json; charset=utf-8"
        case .liveResults: "\(Self.liveResultsMediaType); charset=utf-8"
        }
    }
}
