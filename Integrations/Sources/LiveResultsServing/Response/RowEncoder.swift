import Foundation
import LiveResults

/// Encodes entities as the JSON objects PostgREST answers: the keys `select=` asks for, in PostgREST's order,
/// each value as the entity's `Codable` form writes it.
///
/// ```swift
/// let rows = RowEncoder<Todo>(select: try SelectList(parsing: "title,rank:priority"))
/// try rows.json([todo])   // [{"title":"Milk","rank":2}]
/// ```
///
/// `*` gives every key: the entity's query columns in the order it declares them (a table's columns, in the
/// table's order), then any other key of its JSON in the order it encodes them. A column gives its key, or
/// its alias. An entity's JSON keys are its columns' names.
public struct RowEncoder<Entity: QueryableEntity & Encodable>: Sendable {
    /// What each row holds.
    ///
    /// - Complexity: O(1).
    public let select: SelectList
    private let encoder: JSONEncoder
    private let columnOrder: [String]

    /// An encoder of `select`'s keys, through `encoder` (a plain `JSONEncoder` by default; it must not
    /// pretty-print).
    ///
    /// - Complexity: O(*c*) for *c* columns.
    public init(select: SelectList = .all, encoder: JSONEncoder = JSONEncoder()) {
        self.select = select
        self.encoder = encoder
        columnOrder = Entity.queryColumns.map(\.name)
    }

    /// The rows as a JSON array.
    ///
    /// - Complexity: O(*n* · *k*) for *n* rows of *k* bytes.
    public func json(_ rows: some Sequence<Entity>) throws -> Data {
        var json = Data("[".utf8)
        var first = true
        for row in rows {
            if !first { json.append(UInt8(ascii: ",")) }
            first = false
            json.append(try object(row))
        }
        json.append(UInt8(ascii: "]"))
        return json
    }

    /// One row as a JSON object.
    ///
    /// - Complexity: O(*k*) for *k* bytes.
    public func object(_ row: Entity) throws -> Data {
        let encoded = try encoder.encode(row)
        let members = _JSONMembers.of(encoded)
        var output = Data("{".utf8)
        var written = Set<String>()
        func write(_ key: String, _ value: Data?) {
            guard written.insert(key).inserted else { return }
            if written.count > 1 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: Data(PostgRESTError.quoted(key).utf8))
            output.append(UInt8(ascii: ":"))
            output.append(value ?? Data("null".utf8))
        }
        for item in select.items {
            switch item {
            case .all:
                let values = Dictionary(members.map { ($0.key, $0.value) }) { first, _ in first }
                for column in columnOrder where values[column] != nil { write(column, values[column]) }
                for member in members { write(member.key, member.value) }
            case .column(let column):
                write(column.key, members.first { $0.key == column.name }?.value)
            case .embedded:
                // Embedded resources are refused before rows are encoded (`PostgRESTQuery.validate`).
                continue
            }
        }
        output.append(UInt8(ascii: "}"))
        return output
    }
}

/// The members of a JSON object as `JSONEncoder` writes it (compact, valid): each key, decoded, with its
/// value's bytes as they are.
enum _JSONMembers {
    static func of(_ json: Data) -> [(key: String, value: Data)] {
        let bytes = [UInt8](json)
        var members: [(key: String, value: Data)] = []
        var index = 0
        func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }
        /// The end of the string starting at `index` (its opening quote), past its closing quote.
        func stringEnd(_ start: Int) -> Int {
            var position = start + 1
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
            }
            return position + 1
        }
        /// The end of the value starting at `index`.
        func valueEnd(_ start: Int) -> Int {
            var position = start
            var depth = 0
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""):
                    position = stringEnd(position)
                    if depth == 0 { return position }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return position }
                    depth -= 1
                    if depth == 0 { return position + 1 }
                case UInt8(ascii: ","):
                    if depth == 0 { return position }
                default:
                    break
                }
                position += 1
            }
            return position
        }
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return [] }
        index += 1
        while index < bytes.count {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { break }
            let keyEnd = stringEnd(index)
            let keyJSON = Data(bytes[index..<keyEnd])
            let key = (try? JSONDecoder().decode(String.self, from: keyJSON)) ?? ""
            index = keyEnd
            skipSpace()
            index += 1  // the colon
            skipSpace()
            let end = valueEnd(index)
            var valueBytes = bytes[index..<end]
            while let last = valueBytes.last, [0x20, 0x0A, 0x0D, 0x09].contains(last) { valueBytes.removeLast() }
            members.append((key, Data(valueBytes)))
            index = end
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1 }
        }
        return members
    }
}
