import Foundation

/// A `Link` header (RFC 8288): `<https://api/todos?after=42>; rel="next", <…>; rel="prev"`, the way
/// paged APIs (GitHub's, say) say where the next page is.
///
/// ```swift
/// let link = LinkHeader(#"</todos?after=42>; rel="next""#)
/// link["next"]                              // "/todos?after=42"
/// link.queryValue("after", rel: "next")     // "42": a cursor for the next request
/// ```
public struct LinkHeader: Sendable, Equatable {
    /// The target of each relation, as written (first one wins).
    public var targets: [String: String]

    /// Parses a header's value; malformed links are left out.
    ///
    /// - Complexity: O(*n*) for *n* characters.
    public init(_ value: String) {
        var targets: [String: String] = [:]
        for link in value.split(separator: ",") {
            let parts = link.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let target = parts.first, target.hasPrefix("<"), target.hasSuffix(">") else { continue }
            let url = String(target.dropFirst().dropLast())
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("rel=") {
                let relations = parameter.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                for relation in relations.split(separator: " ") where targets[relation.lowercased()] == nil {
                    targets[relation.lowercased()] = url
                }
            }
        }
        self.targets = targets
    }

    /// The target of `relation` (`"next"`, `"prev"`…), compared case-insensitively.
    public subscript(relation: String) -> String? { targets[relation.lowercased()] }

    /// The value of the query item `name` in the target of `rel`: a page's cursor.
    public func queryValue(_ name: String, rel: String = "next") -> String? {
        guard let target = self[rel], let components = URLComponents(string: target) else { return nil }
        return components.queryItems?.first { $0.name == name }?.value
    }
}
