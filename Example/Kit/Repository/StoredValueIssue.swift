/// A stored value an ``EntityRepository`` could not read, and why. The repository skips it and
/// leaves it in the store.
public struct StoredValueIssue: Error, Hashable, CustomStringConvertible {
    /// Why a stored value could not be read.
    public enum Reason: Hashable, Sendable {
        /// The key does not end with an id.
        case keyWithoutID
        /// The value is not data; `found` says what it is.
        case notData(found: String)
        /// The data is not JSON.
        case notJSON
        /// A field the entity needs is absent: the value was probably written by an older version.
        case missingField(String)
        /// A field holds a value of the wrong type, or `null`.
        case wrongType(field: String)
        /// A field holds a value the entity rejects.
        case invalidField(String)
        /// The value describes another entity than its key says.
        case idMismatch(valueID: String)
    }

    /// The key of the value.
    public var key: String
    /// Why it could not be read.
    public var reason: Reason

    /// Creates an issue.
    public init(key: String, reason: Reason) {
        self.key = key
        self.reason = reason
    }

    /// `"todo.6": missing field "title" (written by an older version?)`.
    public var description: String {
        "\"\(key)\": \(reasonDescription)"
    }

    private var reasonDescription: String {
        switch reason {
        case .keyWithoutID: "the key does not end with an id"
        case .notData(let found): "the value is \(found), not encoded data"
        case .notJSON: "the value is not JSON (corrupted?)"
        case .missingField(let field): "missing field \"\(field)\" (written by an older version?)"
        case .wrongType(let field): "field \"\(field)\" has the wrong type"
        case .invalidField(let field): "field \"\(field)\" has an invalid value"
        case .idMismatch(let valueID): "the value is entity \(valueID), not the one its key names"
        }
    }
}

extension StoredValueIssue.Reason {
    /// The reason a `JSONDecoder` failed.
    ///
    /// - Parameter error: An error thrown while decoding.
    init(decodingError error: any Error) {
        guard let error = error as? DecodingError else {
            self = .notJSON
            return
        }
        switch error {
        case .keyNotFound(let key, let context):
            self = .missingField(Self.field(context.codingPath + [key]))
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            self = .wrongType(field: Self.field(context.codingPath))
        case .dataCorrupted(let context):
            self = context.codingPath.isEmpty ? .notJSON : .invalidField(Self.field(context.codingPath))
        @unknown default:
            self = .notJSON
        }
    }

    private static func field(_ path: [any CodingKey]) -> String {
        path.map(\.stringValue).joined(separator: ".")
    }
}
