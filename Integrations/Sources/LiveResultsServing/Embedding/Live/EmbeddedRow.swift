import Foundation
import LiveResults
import LiveResultsWireSupport

/// A row of a query with embedded resources, kept live by ``LiveEmbedding``: the parent entity (which orders,
/// sections and filters it, as the query's rows) and its JSON object with what `select=` embeds.
///
/// It encodes as its object, the row PostgREST answers for the same query, so a stream of a window of
/// embedded rows carries exactly the objects `GET` answers. It does not decode: a client reads the objects
/// with a type of its own (its parent cannot be rebuilt from the columns `select=` chose).
public struct EmbeddedRow<Parent: QueryableEntity>: FetchableEntity, Codable {
    /// The parent entity: the query's row.
    ///
    /// - Complexity: O(1).
    public let parent: Parent
    /// The row's JSON object, with its embedded resources; `nil` when an `!inner` resource leaves the row
    /// out (it has no related row after the resource's filters), which excludes it from the results.
    ///
    /// - Complexity: O(1).
    public let object: Data?
    /// The parent's section name, when the query is sectioned; empty otherwise.
    ///
    /// - Complexity: O(1).
    public let sectionName: String

    /// The parent's id.
    ///
    /// - Complexity: O(1).
    public var id: Parent.ID { parent.id }

    /// A row of `parent`, with its object.
    ///
    /// - Complexity: O(1).
    public init(parent: Parent, object: Data?, sectionName: String = "") {
        self.parent = parent
        self.object = object
        self.sectionName = sectionName
    }

    /// Encodes the row's object (`null` for a row left out).
    ///
    /// - Complexity: O(*k*) for *k* bytes of the object.
    public func encode(to encoder: any Encoder) throws {
        guard let object else {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
            return
        }
        try JSONDecoder().decode(JSONValue.self, from: object).encode(to: encoder)
    }

    /// Throws: an embedded row is read by a type of the client's own.
    ///
    /// - Throws: `DecodingError.typeMismatch`, always.
    /// - Complexity: O(1).
    public init(from decoder: any Decoder) throws {
        throw DecodingError.typeMismatch(
            Self.self,
            DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "an embedded row is decoded as the client's own type of its object"))
    }
}
