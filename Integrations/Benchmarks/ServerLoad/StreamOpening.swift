import AsyncHTTPClient
import Foundation

/// How many streams a load run opens at once: fewer than the server's accept backlog, so that none is refused, and
/// enough that ten thousand open in tens of seconds.
let openingConcurrency = 100

/// Starts following each of `clients` at `base` (`GET /todos/events?` its query), at most `openingConcurrency` of
/// them between their request and their first update at once; returns when every stream has applied its first
/// update or failed (its failure is in its state), with the tasks that follow them.
///
/// - Throws: When the streams have not all opened within `limit` seconds (the tasks are cancelled).
func openStreams(
    _ clients: [StreamClient], base: String, http: HTTPClient, limit: Double = 300
) async throws -> [Task<Void, Never>] {
    let start = now()
    var tasks: [Task<Void, Never>] = []
    tasks.reserveCapacity(clients.count)
    var opening: [StreamClient] = []
    func awaitOpening(below count: Int) async throws {
        while true {
            opening.removeAll { !$0.isOpening }
            if opening.count < count { return }
            guard seconds(from: start, to: now()) < limit else {
                tasks.forEach { $0.cancel() }
                throw Failure("the streams did not open in \(limit) s (\(tasks.count - opening.count) had)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
    for client in clients {
        try await awaitOpening(below: openingConcurrency)
        opening.append(client)
        tasks.append(Task { await client.follow("\(base)/todos/events?\(client.query)", http: http) })
    }
    try await awaitOpening(below: 1)
    return tasks
}

/// `count` of `clients` (all of them if there are no more), spread over their queries: one client of each of
/// `count` queries evenly apart when there are more queries, else the clients of every query in turn.
func sample(of clients: [StreamClient], count: Int) -> [StreamClient] {
    guard clients.count > count else { return clients }
    var byQuery: [String: [StreamClient]] = [:]
    var queries: [String] = []
    for client in clients {
        if byQuery[client.query] == nil { queries.append(client.query) }
        byQuery[client.query, default: []].append(client)
    }
    let chosen = queries.count > count ? (0..<count).map { queries[$0 * queries.count / count] } : queries
    var sample: [StreamClient] = []
    for member in 0... {
        for query in chosen {
            guard let group = byQuery[query], member < group.count else { continue }
            sample.append(group[member])
            if sample.count == count { return sample }
        }
    }
    return sample
}
