import LiveResults

/// The fields of a person that a request writes: `name`.
public struct PersonInput: RowInput, Equatable {
    public var name: String?

    public init(name: String? = nil) {
        self.name = name
    }

    public init(_ fields: RowFields) throws(TodoServerError) {
        name = try fields.text("name")
    }

    public func row(id: Int64) -> Person { Person(id: id, name: name ?? "") }

    public func applied(to row: Person) -> Person {
        var person = row
        if let name { person.name = name }
        return person
    }

    public var assignments: [(column: String, value: QueryValue)] {
        name.map { [("name", QueryValue.text($0))] } ?? []
    }
}
