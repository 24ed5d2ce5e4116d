import Foundation
import HTTPTypes
import LiveResults
import LiveResultsServing
import NIOCore
import NIOFoundationCompat
import Synchronization
import Testing

/// PostgREST's `GET` of a live query synchronizes its source first when the query was live already, and answers
/// `503` rather than rows that may lack a committed write when the source cannot tell in time.
@Suite("The core's routes: read-your-writes", .timeLimit(.minutes(1)))
struct ReadYourWritesRoutesTests {
    static func routes(_ table: MemoryTable<Row>) -> _LiveRoutes<Row> {
        let route = _LiveQueryRoute(
            path: "rows", filters: ["project"], orders: ["id"], defaultOrder: [], sections: [], maximumLimit: 100,
            respondsItself: { _ in false })
        return _LiveRoutes(registry: LiveQueryRegistry(source: table), route: route, options: LiveResultsOptions())
    }

    static func request(_ query: String, accept: String? = nil) -> LiveResultsRequest {
        var headers = HTTPFields()
        if let accept { headers[.accept] = accept }
        return LiveResultsRequest(headers: headers, query: query)
    }

    @Test("a held query's GET synchronizes, a fetched one's does not; a failure is 503 with Retry-After")
    func synchronizesHeldQueries() async throws {
        let table = MemoryTable([Row(id: 1, title: "milk", project: "Home", priority: 1)])
        let routes = Self.routes(table)
        let query = "project=eq.Home&order=id.asc"
        // The first GET fetches the query, which then stays live for the registry's grace period.
        let first = try await routes.results(Self.request(query))
        #expect(first.status == .ok)
        #expect(table.synchronizations == 0, "fetched by the request: current already")
        table.write([Row(id: 2, title: "mail", project: "Home", priority: 2)])
        let second = try await routes.results(Self.request(query))
        let rows = try JSONDecoder().decode([Row].self, from: Data(buffer: try #require(second.body)))
        #expect(rows.map(\.id) == [1, 2])
        #expect(table.synchronizations == 1, "the query was live: synchronized")
        table.synchronizationFails.store(true, ordering: .relaxed)
        do {
            _ = try await routes.results(Self.request(query))
            Issue.record("answered rows that may lack a write")
        } catch let refusal as LiveResultsRefusal {
            guard case .response(let response) = refusal else {
                Issue.record("refused without a response: \(refusal)")
                return
            }
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] == "1")
            let body = String(buffer: try #require(response.body))
            #expect(body.contains("PGRST000") && body.contains("catch up"), "\(body)")
        }
        // The versioned whole results are live by nature: no synchronization.
        let versioned = try await routes.results(Self.request(query, accept: "application/vnd.liveresults+json"))
        #expect(versioned.status == .ok)
        #expect(table.synchronizations == 2)
        withExtendedLifetime(first) {}
    }
}
