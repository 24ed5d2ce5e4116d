import LiveResults
import Testing

@Suite("Query columns: values read at a property's offset or through its key path alike")
struct QueryColumnTests {
    /// A class: its properties have no offset in a value, so a column reads them through the key path.
    final class Owner: Sendable {
        let name: String
        init(name: String) { self.name = name }
    }

    /// Stored properties of every kind of column, nested ones, a computed one and one through a class.
    struct Row: Sendable {
        struct Inner: Sendable {
            var rank: Int
        }
        var id: Int64
        var title: String
        var score: Double?
        var done: Bool
        var inner: Inner
        var owner: Owner
        var doubled: Int { inner.rank * 2 }
    }

    static let columns: [QueryColumn<Row>] = [
        QueryColumn("id", \.id), QueryColumn("title", \.title), QueryColumn("score", \.score),
        QueryColumn("done", \.done), QueryColumn("rank", \.inner.rank), QueryColumn("doubled", \.doubled),
        QueryColumn("owner", \.owner.name),
    ]

    @Test("each column reads what its key path reads, for every row", arguments: 0..<20)
    func valuesMatchKeyPaths(seed: Int) {
        let row = Row(
            id: Int64(seed) - 10, title: seed.isMultiple(of: 3) ? "" : "t\(seed)é",
            score: seed.isMultiple(of: 4) ? nil : Double(seed) / 3, done: seed.isMultiple(of: 2),
            inner: Row.Inner(rank: seed * 7 - 50), owner: Owner(name: "o\(seed)"))
        let expected: [QueryValue] = [
            row.id.queryValue, .text(row.title), row.score.queryValue, row.done.queryValue,
            row.inner.rank.queryValue, row.doubled.queryValue, .text(row.owner.name),
        ]
        #expect(Self.columns.map { $0.value(of: row) } == expected)
    }
}
