import Foundation

/// The fields of a to-do that a request writes: all of them for `POST`, any of them for `PATCH`.
///
/// Each mistake says which field and what was wrong, for the `400` it gets. Fields the server does not know
/// are ignored (a client may send back a whole to-do, `id` included).
public struct TodoInput: Sendable, Equatable {
    public var title: String?
    public var project: String?
    public var priority: Int?

    public init(title: String? = nil, project: String? = nil, priority: Int? = nil) {
        self.title = title
        self.project = project
        self.priority = priority
    }

    /// The to-do's fields in `json`; `requiringAll` for a new to-do.
    ///
    /// - Throws: ``TodoServerError/badRequest(_:)`` saying what is wrong.
    public init(json: Data, requiringAll: Bool) throws(TodoServerError) {
        let decoder = JSONDecoder()
        decoder.userInfo[Fields.requiringAll] = requiringAll
        do {
            self = try decoder.decode(Fields.self, from: json).input
        } catch let error as TodoServerError {
            throw error
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw .badRequest("the body must be a JSON object")
        } catch {
            throw .badRequest("the body is not JSON")
        }
    }

    /// Decodes the fields one by one, so that the error names the field.
    private struct Fields: Decodable {
        static let requiringAll = CodingUserInfoKey(rawValue: "requiringAll")!
        var input = TodoInput()

        private enum Key: String, CodingKey {
            case title, project, priority
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let requiringAll = decoder.userInfo[Self.requiringAll] as? Bool ?? false
            for key in [Key.title, .project, .priority] where !container.contains(key) && requiringAll {
                throw TodoServerError.badRequest("missing field \"\(key.stringValue)\"")
            }
            input.title = try Self.field(.title, in: container, "a string") { try $0.decode(String.self, forKey: $1) }
            input.project = try Self.field(.project, in: container, "a string") {
                try $0.decode(String.self, forKey: $1)
            }
            // PostgreSQL keeps priorities in an `int`: a 32-bit integer (not 2.5, not `true`, not 3e9).
            input.priority = try Self.field(.priority, in: container, "an integer from \(Int32.min) to \(Int32.max)") {
                Int(try $0.decode(Int32.self, forKey: $1))
            }
        }

        private static func field<Value>(
            _ key: Key, in container: KeyedDecodingContainer<Key>, _ kind: String,
            _ decode: (KeyedDecodingContainer<Key>, Key) throws -> Value
        ) throws -> Value? {
            guard container.contains(key) else { return nil }
            do {
                return try decode(container, key)
            } catch {
                throw TodoServerError.badRequest("field \"\(key.stringValue)\" must be \(kind)")
            }
        }
    }
}
