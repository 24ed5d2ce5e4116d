import Foundation
import XMLCoder

/// `application/x-www-form-urlencoded`: flat fields as `name=value` pairs.
enum _FormCoding {
    /// The pairs of a JSON object's top-level fields: strings, numbers and booleans as text, arrays as one
    /// pair per element, `null` omitted; names in sorted order, so that a body is stable.
    ///
    /// - Throws: ``HTTPAPIError/unencodableBody(_:)`` for a body that is not an object, or a nested object.
    static func pairs(fromJSON json: Data, decoder: JSONDecoder) throws -> [(name: String, value: String)] {
        guard case .object(let fields) = try decoder.decode(_JSONValue.self, from: json) else {
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

    private static func texts(_ value: _JSONValue, field: String) throws -> [String] {
        switch value {
        case .null: return []
        case .text(let text): return [text]
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

/// A JSON value, with every scalar as the text a form sends.
enum _JSONValue: Decodable {
    case null
    case text(String)
    case array([_JSONValue])
    case object([String: _JSONValue])

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: _AnyKey.self) {
            var fields: [String: _JSONValue] = [:]
            for key in object.allKeys {
                fields[key.stringValue] = try object.decode(_JSONValue.self, forKey: key)
            }
            self = .object(fields)
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [_JSONValue] = []
            while !array.isAtEnd {
                elements.append(try array.decode(_JSONValue.self))
            }
            self = .array(elements)
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                self = .null
            } else if let bool = try? value.decode(Bool.self) {
                self = .text(String(bool))
            } else if let integer = try? value.decode(Int64.self) {
                self = .text(String(integer))
            } else if let number = try? value.decode(Double.self) {
                self = .text(String(number))
            } else {
                self = .text(try value.decode(String.self))
            }
        }
    }
}

/// Any coding key, by name.
struct _AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
