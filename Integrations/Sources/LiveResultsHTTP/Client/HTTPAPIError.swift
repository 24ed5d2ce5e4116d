/// What failed in sending a typed request or reading its answer, said so that the message alone tells.
public enum HTTPAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The base URL and path do not make a URL (the text says which).
    case invalidURL(String)
    /// The path's `{name}` placeholder has no ``RequestPathParameter`` with a value.
    case unfilledPathParameter(name: String, path: String)
    /// The body could not be encoded (the encoder's reason).
    case unencodableBody(String)
    /// The status is not 2xx or 3xx and the response has no ``ResponseErrorBody`` to take the body:
    /// the status, and the body as text (at most 1,000 characters).
    case unacceptableStatus(Int, body: String)
    /// The body does not decode as `type`: where (the coding path, `body.items[3].id`), why, and the body
    /// as text (at most 1,000 characters). An empty or truncated body is one too.
    case undecodableBody(type: String, codingPath: String, reason: String, body: String)
    /// The body's `Content-Type` is not the one the response reads.
    case unexpectedContentType(expected: String, received: String)
    /// A required ``ResponseHeader`` is absent.
    case missingHeader(String)
    /// No answer within the request's timeout.
    case timedOut(Duration)
    /// The request could not be exchanged: a refused connection, a reset, a malformed answer (the
    /// transport's description).
    case transport(String)
    /// The response read has no entities (its body is absent), for a fetch definition.
    case noEntities(String)
    /// A Server-Sent Events stream answered with something else (``RemoteResults``).
    case notAnEventStream(status: Int, contentType: String?)

    /// The failure in words.
    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL: \(url)"
        case .unfilledPathParameter(let name, let path): "the path \(path) has no value for {\(name)}"
        case .unencodableBody(let reason): "the body could not be encoded: \(reason)"
        case .unacceptableStatus(let status, let body): "status \(status): \(body)"
        case .undecodableBody(let type, let path, let reason, let body):
            "the body does not decode as \(type) at \(path.isEmpty ? "its top" : path): \(reason); body: \(body)"
        case .unexpectedContentType(let expected, let received):
            "expected a body of type \(expected), received \(received)"
        case .missingHeader(let name): "the required header \(name) is missing"
        case .timedOut(let timeout): "no answer within \(timeout)"
        case .transport(let reason): "the request failed: \(reason)"
        case .noEntities(let type): "the response \(type) has no entities"
        case .notAnEventStream(let status, let contentType):
            "not an event stream: status \(status), content type \(contentType ?? "none")"
        }
    }

    /// `body` as text, cut to 1,000 characters, for a message.
    static func excerpt(_ body: some Collection<UInt8>) -> String {
        let text = String(decoding: body, as: UTF8.self)
        return text.count > 1_000 ? String(text.prefix(1_000)) + "…" : text
    }
}
