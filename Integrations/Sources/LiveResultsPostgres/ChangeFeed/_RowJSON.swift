import Foundation

/// Writes a row that `pgoutput` sent as text into the JSON object `row_to_json` would have made of it, for the
/// table's decoder: numbers unquoted, booleans as `true`/`false`, `json` and `jsonb` embedded, `NULL` as `null`,
/// timestamps in ISO 8601 form (`T` between date and time), anything else a string of its text.
///
/// Arrays, composite types and ranges are strings of their text form (`row_to_json` makes arrays and
/// composites JSON): a column of such a type needs a custom `Decodable` that reads the text, or the notifications.
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

    private static func json(_ text: String, typeOID: UInt32) -> String {
        switch typeOID {
        case 16:  // bool
            return text == "t" ? "true" : "false"
        case 20, 21, 23, 26:  // int8, int2, int4, oid
            return text
        case 700, 701, 1700:  // float4, float8, numeric: NaN and the infinities are strings, as in row_to_json
            return text.first.map { $0.isNumber || $0 == "-" } == true && !text.hasSuffix("Infinity")
                ? text : quoted(text)
        case 114, 3802:  // json, jsonb
            return text
        case 1114, 1184:  // timestamp, timestamptz
            return quoted(isoTimestamp(text))
        default:
            return quoted(text)
        }
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
