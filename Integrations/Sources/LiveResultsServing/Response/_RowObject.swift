import Foundation

/// Writes the JSON object of a row as PostgREST answers it.
enum _RowObject {
    /// The object of a row's JSON `members`, with the keys `select` asks for in PostgREST's order: `columnOrder`
    /// first for `*`, and each embedded resource's value from `embedded`, by its key (`null` when absent). A
    /// spread resource's value is the members it spreads into the object (`"a":1,"b":2`, or nothing).
    ///
    /// - Complexity: O(*m* · *s*) for *m* members and *s* select items.
    static func write(
        members: [(key: String, value: Data)], select: SelectList, columnOrder: [String],
        embedded: [String: Data] = [:]
    ) -> Data {
        var output = Data("{".utf8)
        var written = Set<String>()
        func separate() {
            if output.count > 1 { output.append(UInt8(ascii: ",")) }
        }
        func write(_ key: String, _ value: Data?) {
            guard written.insert(key).inserted else { return }
            separate()
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
            case .embedded(let resource) where resource.select.items.isEmpty:
                // An empty embedding (`people()`) only filters, with `!inner` or `people=not.is.null`.
                continue
            case .embedded(let resource) where resource.isSpread:
                guard let members = embedded[resource.key], !members.isEmpty else { continue }
                separate()
                output.append(members)
            case .embedded(let resource):
                write(resource.key, embedded[resource.key])
            }
        }
        output.append(UInt8(ascii: "}"))
        return output
    }
}
