import Foundation
import LiveResults

/// An answer in PostgREST's form, for a framework adapter to send as it is: status, headers, body.
///
/// ```swift
/// let answer = try PostgRESTAnswer.read(
///     rows: page, offset: 0, total: nil, format: .array, preferences: prefer, rows: RowEncoder<Todo>())
/// // 200, Content-Range: 0-19/*, [{"id":1,…},…]
/// ```
public struct PostgRESTAnswer: Sendable {
    /// The HTTP status.
    ///
    /// - Complexity: O(1).
    public var status: Int
    /// The headers, in order.
    ///
    /// - Complexity: O(1).
    public var headers: [(name: String, value: String)]
    /// The body, or `nil` for none.
    ///
    /// - Complexity: O(1).
    public var body: Data?

    /// An answer of these parts.
    ///
    /// - Complexity: O(1).
    public init(status: Int, headers: [(name: String, value: String)], body: Data?) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A read's answer: `rows` (the window, from `offset`) as an array, or as one object for
    /// ``PostgRESTFormat/object``, with `Content-Range` and, with a `total`, PostgREST's `206`.
    ///
    /// - Parameters:
    ///   - rows: The rows answered, in order.
    ///   - offset: The position of the first.
    ///   - total: All the query's rows without `limit` and `offset`, when the request counts (`Prefer:
    ///     count=exact`), else `nil`.
    ///   - format: ``PostgRESTFormat/array`` or ``PostgRESTFormat/object``.
    ///   - preferences: The request's `Prefer`.
    ///   - encoder: Encodes each row.
    /// - Throws: ``PostgRESTError``: `406 PGRST116` when an object is asked for and there is not exactly one row;
    ///   `416 PGRST103` when the offset is past the total; an encoding error.
    /// - Complexity: O(*n* · *k*) for *n* rows of *k* bytes.
    public static func read<Entity: QueryableEntity & Encodable>(
        rows: some Collection<Entity>, offset: Int, total: Int?, format: PostgRESTFormat,
        preferences: PostgRESTPreferences, encoder: RowEncoder<Entity>
    ) throws -> PostgRESTAnswer {
        try read(
            objects: rows.map(encoder.object), offset: offset, total: total, format: format, preferences: preferences)
    }

    /// The answer of a read whose rows are written already: each a JSON object (with its embedded resources).
    ///
    /// - Parameters:
    ///   - objects: The rows answered, in order, each a JSON object.
    ///   - offset: The position of the first.
    ///   - total: All the query's rows without `limit` and `offset`, when the request counts, else `nil`.
    ///   - format: ``PostgRESTFormat/array`` or ``PostgRESTFormat/object``.
    ///   - preferences: The request's `Prefer`.
    /// - Throws: As the read of entities.
    /// - Complexity: O(*n* · *k*) for *n* rows of *k* bytes.
    public static func read(
        objects: [Data], offset: Int, total: Int?, format: PostgRESTFormat, preferences: PostgRESTPreferences
    ) throws -> PostgRESTAnswer {
        let range = ContentRange(offset: offset, count: objects.count, total: total)
        if range.status == 416, let total { throw PostgRESTError.rangeNotSatisfiable(offset: offset, total: total) }
        var headers: [(name: String, value: String)] = [("Content-Range", range.header)]
        if let applied = preferences.applied(write: false) { headers.append(("Preference-Applied", applied)) }
        return PostgRESTAnswer(
            status: range.status, headers: headers + [("Content-Type", format.contentType)],
            body: try body(objects, format: format))
    }

    /// What a write did.
    public enum Write: Hashable, Sendable {
        /// `POST`: rows inserted; `array` when the body was an array (without `Prefer: return=`, the answer is
        /// what was sent: an array for an array, an object for an object).
        case insert(array: Bool)
        /// `PATCH`: rows updated.
        case update
        /// `DELETE`: rows deleted.
        case delete
    }

    /// A write's answer, as PostgREST gives it: `201` for an insert, `200` with the rows for an update or a
    /// delete with `Prefer: return=representation`, else `204` without a body; `Content-Range` with the count
    /// for `Prefer: count=exact`.
    ///
    /// An insert without `Prefer: return=` answers what was created (an object for an object, an array for an
    /// array), as the server example's API always has; PostgREST answers no body there.
    ///
    /// - Throws: `406 PGRST116` when ``PostgRESTFormat/object`` is asked for with the rows and there is not
    ///   exactly one; an encoding error.
    /// - Complexity: O(*n* · *k*) for *n* rows of *k* bytes.
    public static func write<Entity: QueryableEntity & Encodable>(
        _ write: Write, rows: [Entity], format: PostgRESTFormat, preferences: PostgRESTPreferences,
        encoder: RowEncoder<Entity>
    ) throws -> PostgRESTAnswer {
        let total = preferences.countsRows ? rows.count : nil
        let range: ContentRange
        // A write's rows are an array, or the one object asked for (the versioned form is a read's only).
        var answered: PostgRESTFormat? =
            preferences.representation == .full ? (format == .object ? .object : .array) : nil
        let status: Int
        switch write {
        case .insert(let array):
            range = ContentRange(offset: 1, count: 0, total: total)
            status = 201
            if preferences.representation == nil { answered = array ? .array : .object }
        case .update:
            range = ContentRange(offset: 0, count: rows.count, total: total)
            status = answered == nil ? 204 : 200
        case .delete:
            range = ContentRange(offset: 1, count: 0, total: total)
            status = answered == nil ? 204 : 200
        }
        var headers: [(name: String, value: String)] = [("Content-Range", range.header)]
        if let applied = preferences.applied(write: true) { headers.append(("Preference-Applied", applied)) }
        guard let answered else { return PostgRESTAnswer(status: status, headers: headers, body: nil) }
        return PostgRESTAnswer(
            status: status, headers: headers + [("Content-Type", answered.contentType)],
            body: try body(rows.map(encoder.object), format: answered))
    }

    /// The rows as an array, or as the one object `format` asks for.
    /// The rows' objects as an array, or the one object asked for.
    private static func body(_ objects: [Data], format: PostgRESTFormat) throws -> Data {
        guard format == .object else {
            return Data("[".utf8) + Data(objects.joined(separator: Data(",".utf8))) + Data("]".utf8)
        }
        guard objects.count == 1 else { throw PostgRESTError.singularity(rows: objects.count) }
        return objects[0]
    }

    /// An error's answer: its status, JSON and `Proxy-Status`.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public static func error(_ error: PostgRESTError) -> PostgRESTAnswer {
        PostgRESTAnswer(status: error.status, headers: error.responseHeaders(), body: error.body())
    }
}
