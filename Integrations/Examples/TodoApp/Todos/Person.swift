import Foundation
import LiveResults

/// A person to-dos are assigned to: the row of `people(id bigserial primary key, name text not null)`, and the
/// JSON `{"id": 1, "name": "…"}`.
public struct Person: FetchableEntity, Codable, Hashable {
    public var id: Int64
    public var name: String

    public init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
}

extension Person: TableRow {
    /// `people`.
    public static var table: String { "people" }

    /// The columns clients may name in `/people`' queries: those of the table, in its order.
    public static let queryColumns: [QueryColumn<Person>] = [QueryColumn("id", \.id), QueryColumn("name", \.name)]
}
