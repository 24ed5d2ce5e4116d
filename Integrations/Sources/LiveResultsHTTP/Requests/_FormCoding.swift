import Foundation
import LiveResultsWireSupport
import XMLCoder

/// `application/x-www-form-urlencoded`: flat fields as `name=value` pairs.
enum _FormCoding {
    /// The pairs of a JSON object's top-level fields: strings, numbers and booleans as text, arrays as one
    /// pair per element, `null` omitted; names in sorted order, so that a body is stable.
    ///
    /// - Throws: ``HTTPAPIError/unencodableBody(_:)`` for a body that is not an object, or a nested object.
    static func pairs(fromJSON json: Data, decoder: JSONDecoder) throws -> [(name: String, value: String)] {
        guard case .object(let fields) = try decoder.decode(JSONValue.self, from: json) else {
            throw HTTPAPIError.unencodableBody("a form body must encode as an object of fields")
        }
        var pairs: [(name: String, value: String)] = []
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            for text in try texts(value, field: name) {
                pairs.append((name, text))
            }
        }
        return pairs
    }

    private static func texts(_ value: JSONValue, field: String) throws -> [String] {
        switch value {
        case .null: return []
        case .bool(let value): return [String(value)]
        case .integer(let value): return [String(value)]
        case .number(let value): return [String(value)]
        case .string(let text): return [text]
        case .array(let elements): return try elements.flatMap { try texts($0, field: field) }
        case .object: throw HTTPAPIError.unencodableBody("form field \(field) is an object; a form is flat")
        }
    }

    /// `pairs` as a form: each name and value percent-encoded, joined by `=` and `&`.
    static func encode(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { _PercentEncoding.encode($0.name) + "=" + _PercentEncoding.encode($0.value) }
            .joined(separator: "&")
    }

    /// The pairs of a form (`+` read as a space).
    static func decode(_ form: String) throws -> [(name: String, value: String)] {
        try form.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = _PercentEncoding.decode(parts[0], plusIsSpace: true),
                let value = _PercentEncoding.decode(parts.count > 1 ? parts[1] : "", plusIsSpace: true)
            else {
                throw HTTPAPIError.undecodableBody(
                    type: "form", codingPath: "", reason: "a field is not UTF-8 once decoded", body: form)
            }
            return (name, value)
        }
    }

    /// Decodes a form into `Value` through XMLCoder, which reads typed values (numbers, booleans) from
    /// text: each field becomes an element of a flat document, a repeated field a repeated element (an
    /// array). Field names that are not XML names (letters, digits, `_`, `-`, `.`, not starting with a
    /// digit or `-`) cannot name a property and are left out.
    static func decode<Value: Decodable>(_ type: Value.Type, from form: String, decoder: XMLDecoder) throws -> Value {
        var document = "<form>"
        for (name, value) in try decode(form) where isXMLName(name) {
            document += "<\(name)>\(escapeXML(value))</\(name)>"
        }
        document += "</form>"
        return try decoder.decode(Value.self, from: Data(document.utf8))
    }

    private static func isXMLName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else {
            return false
        }
        return name.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0)
        }
    }

    private static func escapeXML(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
