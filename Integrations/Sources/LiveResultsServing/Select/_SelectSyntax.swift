import Foundation

/// How names are written back in PostgREST's syntax.
enum _SelectSyntax {
    /// `name` as written, or double-quoted when it holds a character the grammar reserves.
    static func name(_ name: String) -> String {
        let plain =
            !name.isEmpty && name.first != " " && name.last != " " && !name.hasPrefix("-") && !name.hasSuffix("-")
            && !name.contains("--") && !name.contains("->") && !name.contains("...")
            && !name.contains(" -") && !name.contains("- ")
            && name.allSatisfy { $0.isLetter || ("0"..."9").contains($0) || "_ $-".contains($0) }
        return plain ? name : quoted(name)
    }

    /// A JSON key as written, or double-quoted when it holds a reserved character.
    static func jsonKey(_ key: String) -> String {
        let plain =
            !key.isEmpty && key.first != " " && key.last != " " && !key.hasPrefix("-") && !key.hasSuffix("-")
            && !key.contains("--") && !key.contains("\"") && Int(key) == nil
            && key.allSatisfy { !"(-:.,>)".contains($0) || $0 == "-" }
        return plain ? key : quoted(key)
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
