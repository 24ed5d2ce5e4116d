import Foundation

/// Writes a row that `pgoutput` sent as text into the JSON object `row_to_json` would have made of it, for the
/// table's decoder: numbers unquoted (`NaN` and the infinities as strings), booleans as `true`/`false`, `json`
/// and `jsonb` embedded, `NULL` as `null`, timestamps in ISO 8601 form (`T` between date and time), arrays of
/// the built-in types as JSON arrays (nested for several dimensions, `NULL` elements as `null`, bounds dropped),
/// anything else a string of its text, as `row_to_json` writes text, enums, dates, intervals, UUIDs and `bytea`.
///
/// What stays a string of its text form although `row_to_json` writes JSON: composite types (`row_to_json` makes
/// an object; `pgoutput` names only the type, not its fields), arrays of types that are not built in (enums,
/// composites, domains), and domains over numbers, booleans or JSON (`pgoutput` gives the domain's own type,
/// not its base type). A column of such a type needs a `Decodable` that reads the text, or the notifications.
enum _RowJSON {
    /// The JSON object of a row, its keys the column names; `nil` when a column is an unchanged TOAST value.
    static func object(columns: [_PgOutputMessage.Relation.Column], values: [_PgOutputMessage.Column]) -> String? {
        var json = "{"
        for (index, (column, value)) in zip(columns, values).enumerated() {
            guard let text = self.value(value, typeOID: column.typeOID) else { return nil }
            if index > 0 { json += "," }
            json += quoted(column.name)
            json += ":"
            json += text
        }
        return json + "}"
    }

    /// One column's JSON; `nil` for an unchanged TOAST value.
    static func value(_ value: _PgOutputMessage.Column, typeOID: UInt32) -> String? {
        switch value {
        case .null: return "null"
        case .unchangedToast: return nil
        case .text(let text): return json(text, typeOID: typeOID)
        }
    }

    static func json(_ text: String, typeOID: UInt32) -> String {
        // The scalar types first: an id is one, and needs no look-up of the array types (no array type's OID is
        // among these).
        switch typeOID {
        case 16:  // bool
            return text == "t" ? "true" : "false"
        case 20, 21, 23:  // int8, int2, int4 (`oid` is a string in row_to_json)
            return text
        case 700, 701, 1700:  // float4, float8, numeric: NaN and the infinities are strings, as in row_to_json
            return text.first.map { $0.isNumber || $0 == "-" } == true && !text.hasSuffix("Infinity")
                ? text : quoted(text)
        case 114, 3802:  // json, jsonb
            return text
        case 1114, 1184:  // timestamp, timestamptz
            return quoted(isoTimestamp(text))
        default:
            guard let element = arrayElementTypes[typeOID] else { return quoted(text) }
            return array(text, elementType: element) ?? quoted(text)
        }
    }

    /// The element types of the built-in array types, by the array type's OID.
    static let arrayElementTypes: [UInt32: UInt32] = [
        1000: 16,  // bool[]
        1005: 21, 1007: 23, 1016: 20,  // int2[], int4[], int8[]
        1021: 700, 1022: 701, 1231: 1700,  // float4[], float8[], numeric[]
        1009: 25, 1015: 1043, 1014: 1042, 1003: 19, 1002: 18,  // text[], varchar[], bpchar[], name[], char[]
        199: 114, 3807: 3802,  // json[], jsonb[]
        1115: 1114, 1185: 1184, 1182: 1082, 1183: 1083,  // timestamp[], timestamptz[], date[], time[]
        2951: 2950, 1001: 17, 1028: 26, 1187: 1186,  // uuid[], bytea[], oid[], interval[]
    ]

    /// An array's text form (`{1,2}`, `{{"a b",NULL}}`, `[0:1]={1,2}`) as a JSON array of its elements' JSON;
    /// `nil` when the text is not an array literal.
    static func array(_ text: String, elementType: UInt32) -> String? {
        var reader = _ArrayLiteralReader(Array(text.utf8))
        return reader.read { element in element.map { json($0, typeOID: elementType) } ?? "null" }
    }

    /// `2024-05-01 10:00:00+02` as `row_to_json` writes it: `2024-05-01T10:00:00+02:00`.
    private static func isoTimestamp(_ text: String) -> String {
        var text = text.replacing(" ", with: "T", maxReplacements: 1)
        // An offset of whole hours (`+02`) gets its minutes, as JSON's ISO 8601 form has them.
        let scalars = Array(text.unicodeScalars)
        if scalars.count >= 3, scalars[scalars.count - 3] == "+" || scalars[scalars.count - 3] == "-",
            scalars[scalars.count - 2].properties.numericType != nil,
            scalars[scalars.count - 1].properties.numericType != nil
        {
            text += ":00"
        }
        return text
    }

    /// A JSON string.
    static func quoted(_ text: String) -> String {
        var json = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                json +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: json.unicodeScalars.append(scalar)
            }
        }
        return json + "\""
    }
}

/// Reads PostgreSQL's text form of an array (`array_out`): braces around each dimension, elements separated by
/// commas, quoted with `"` when they hold a special character (backslash escapes inside), `NULL` unquoted for a
/// null element, and, when a lower bound is not 1, the bounds first (`[0:1]={…}`).
struct _ArrayLiteralReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The array as JSON, each element written by `element` (`nil` for `NULL`); `nil` when malformed.
    mutating func read(element: (String?) -> String) -> String? {
        if peek == UInt8(ascii: "[") {
            // The bounds: row_to_json leaves them out.
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            index = equals + 1
        }
        guard let json = readDimension(element: element, depth: 1) else { return nil }
        skipSpaces()
        return index == bytes.count ? json : nil
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpaces() {
        while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") {
            index += 1
        }
    }

    /// PostgreSQL's most dimensions of an array (`MAXDIM`): deeper nesting is not an array it sent, and would
    /// only take the stack.
    private static var maximumDepth: Int { 6 }

    private mutating func readDimension(element: (String?) -> String, depth: Int) -> String? {
        skipSpaces()
        guard depth <= Self.maximumDepth, peek == UInt8(ascii: "{") else { return nil }
        index += 1
        var items: [String] = []
        skipSpaces()
        if peek == UInt8(ascii: "}") {
            index += 1
            return "[]"
        }
        while true {
            skipSpaces()
            switch peek {
            case UInt8(ascii: "{"):
                guard let nested = readDimension(element: element, depth: depth + 1) else { return nil }
                items.append(nested)
            case UInt8(ascii: "\""):
                guard let text = readQuoted() else { return nil }
                items.append(element(text))
            case nil:
                return nil
            default:
                let text = readUnquoted()
                items.append(element(text.uppercased() == "NULL" ? nil : text))
            }
            skipSpaces()
            switch peek {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                return "[" + items.joined(separator: ",") + "]"
            default:
                return nil
            }
        }
    }

    private mutating func readQuoted() -> String? {
        index += 1
        var text: [UInt8] = []
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { return nil }
                text.append(escaped)
                index += 1
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            default:
                text.append(byte)
            }
        }
        return nil
    }

    private mutating func readUnquoted() -> String {
        let start = index
        while let byte = peek, byte != UInt8(ascii: ","), byte != UInt8(ascii: "}") { index += 1 }
        var end = index
        while end > start, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
