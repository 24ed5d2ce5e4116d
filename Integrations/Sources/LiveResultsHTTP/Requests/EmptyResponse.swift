/// A response that reads nothing: for requests whose answer has no body worth reading (a `204`).
///
/// A status that is not 2xx or 3xx still throws ``HTTPAPIError/unacceptableStatus(_:body:)``, as for
/// every response without a ``ResponseErrorBody``.
public struct EmptyResponse: Decodable, Sendable, Equatable {
    /// Creates an empty response.
    public init() {}

    /// Reads nothing.
    public init(from decoder: any Decoder) throws {}
}
