import Foundation
import LiveResults
import PostgresNIO
import TodoServer

/// How many of `clients` show exactly the rows their query selects in SQL, in its order (sections by project first,
/// when it asks for them), and the rows compared, in all. Their queries are those of `Options.query(forClient:)`:
/// filters on project, priority and `id`, an order (by priority, then id, when none), and a limit. Titles are
/// unique (each write stamps its own), so an order by title has no ties; they are ASCII, compared byte by byte as
/// Swift compares them, as are the projects that name the sections.
func equalToSQL(_ clients: [StreamClient], _ database: PostgresClient) async throws -> (equal: Int, rows: Int) {
    var selected: [String: [Todo]] = [:]
    for query in Set(clients.map(\.query)) {
        let rows = try await database.query(PostgresQuery(unsafeSQL: try sql(of: query))).collect()
        selected[query] = try rows.map { row in
            let (id, title, project, priority, assignee) = try row.decode((Int64, String, String, Int, Int64?).self)
            return Todo(id: id, title: title, project: project, priority: priority, assigneeID: assignee)
        }
    }
    let equal = clients.filter { client in
        client.replica.sections.flatMap { Array($0.objects) } == selected[client.query]
    }.count
    return (equal, clients.reduce(0) { $0 + (selected[$1.query]?.count ?? 0) })
}

/// The `SELECT` of `query`, a live query of `Options.query(forClient:)` as URL parameters. Every value in it is
/// read as a whole number (a project's too, `project K`), so none is quoted from the query.
private func sql(of query: String) throws -> String {
    let orders = [
        "id.asc": "id", "id.desc": "id DESC", "title.asc": "title COLLATE \"C\"",
        "title.desc": "title COLLATE \"C\" DESC",
    ]
    var conditions: [String] = []
    var order = "priority, id"
    var sections = false
    var limit: Int?
    for pair in query.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
        guard parts.count == 2 else { throw Failure("not a query of ServerLoad: \(query)") }
        switch parts[0] {
        case "order":
            guard let named = orders[parts[1]] else { throw Failure("not an order of ServerLoad: \(query)") }
            order = named
        case "limit": limit = Int(parts[1])
        case "sections": sections = parts[1] == "project"
        case "project", "priority", "id":
            let condition = parts[1].split(separator: ".", maxSplits: 1).map(String.init)
            let value = parts[0] == "project" ? condition.last?.split(separator: " ").last : condition.last?[...]
            guard condition.count == 2, let operation = ["eq": "=", "gt": ">", "lt": "<"][condition[0]],
                let number = value.flatMap({ Int($0) })
            else { throw Failure("not a filter of ServerLoad: \(pair)") }
            conditions.append(
                parts[0] == "project"
                    ? "project \(operation) 'project \(number)'" : "\(parts[0]) \(operation) \(number)")
        default: throw Failure("not a parameter of ServerLoad: \(pair)")
        }
    }
    guard let limit else { throw Failure("a query of ServerLoad without a limit: \(query)") }
    return "SELECT id, title, project, priority, assignee_id FROM todos"
        + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        + " ORDER BY " + (sections ? "project COLLATE \"C\", " : "") + order + " LIMIT \(limit)"
}
