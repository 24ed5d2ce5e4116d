import AsyncHTTPClient
import Foundation
import LiveResults
import LiveResultsWireSupport
import NIOCore
import NIOConcurrencyHelpers
import NIOHTTP1
import TodoServer

/// A client that follows the event stream into a replica of its own, noting when it sees each write.
final class StreamClient: Sendable {
    struct State {
        /// When each write this client saw was first seen here, by sequence number: only the writes that reached
        /// it (a window sees few of them), so that ten thousand clients do not each hold the whole log.
        var seen: [Int: UInt64] = [:]
        /// The writes first seen when their row may have slid into the client's window because another row left
        /// it: not a write reaching the client (the departure is), so not timed.
        var slid: Set<Int> = []
        var bytes = 0
        var updates = 0
        var failure: String?
        var ended = false
        /// Whether the next update is the first of a connection, and how the connections after the first began.
        var awaitsFirst = true
        var catchUps = 0
        var wholes = 0
    }

    let replica = ResultsReplica<Todo>()
    /// The live query the client follows, as URL parameters.
    let query: String
    private let state: NIOLockedValueBox<State>
    private let log: WriteLog
    private let decoder: SharedDecoder

    init(query: String, log: WriteLog, decoder: SharedDecoder) {
        self.query = query
        self.log = log
        self.decoder = decoder
        state = NIOLockedValueBox(State())
    }

    var counters: (bytes: Int, updates: Int) { state.withLockedValue { ($0.bytes, $0.updates) } }
    var snapshot: State { state.withLockedValue { $0 } }

    /// Whether the client's connection has neither applied its first update nor ended.
    var isOpening: Bool { state.withLockedValue { $0.awaitsFirst && $0.failure == nil && !$0.ended } }

    /// Whether the client follows a window, where rows slide in as others leave.
    var isWindowed: Bool { query.contains("limit=") && query != wholeList }

    /// Forgets how the last connection ended, before the client connects again.
    func beginConnection() {
        state.withLockedValue { state in
            (state.failure, state.ended, state.awaitsFirst) = (nil, false, true)
        }
    }

    /// Reads `url` until the stream ends or the task is cancelled; with `lastEventID`, resumes from it.
    func follow(_ url: String, http: HTTPClient, lastEventID: ResultsVersion? = nil) async {
        do {
            var request = HTTPClientRequest(url: url)
            if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID.description) }
            let response = try await http.execute(request, timeout: .hours(1))
            guard response.status == .ok else { throw Failure("GET \(url): \(response.status)") }
            var parser = ServerSentEventParser()
            for try await buffer in response.body {
                let count = buffer.readableBytes
                state.withLockedValue { $0.bytes += count }
                for event in try parser.feed(Data(buffer.readableBytesView)) {
                    try apply(try decoder.decode(event.data))
                }
            }
            state.withLockedValue { $0.ended = true }
        } catch is CancellationError {
        } catch {
            if !Task.isCancelled { state.withLockedValue { $0.failure = "\(error)" } }
        }
    }

    private func apply(_ update: ResultsUpdate<Todo>) throws {
        var seen: [Int] = []
        var slid: [Int] = []
        switch update.content {
        case .results(let sections):
            // Whole results in the middle of a stream (a catch-up the server no longer held the history for)
            // show a deletion as a row that is no longer there.
            let remaining = Set(sections.lazy.flatMap { $0.entities.map(\.id) })
            for todo in replica.fetchedObjects where !remaining.contains(todo.id) {
                if let sequence = log.deletion(of: todo.id) { seen.append(sequence) }
            }
            try replica.apply(update)
            for section in sections {
                for todo in section.entities {
                    if let sequence = stampedSequence(in: todo.title) { seen.append(sequence) }
                }
            }
        case .changes(_, let changes):
            let before = replica.snapshot
            for path in changes.deletedItems {
                if let sequence = log.deletion(of: before.object(at: path).id) { seen.append(sequence) }
            }
            try replica.apply(update)
            for item in changes.updatedItems {
                if let sequence = stampedSequence(in: item.entity.title) { seen.append(sequence) }
            }
            // A row slides into a full window at its end when another row leaves it; a row that enters by its own
            // write (a POST, or a change of its project or priority) lands at its place in the order. So an
            // insertion among the window's last rows, as many as rows left it, may have slid in, and is not timed
            // (a write that happens to land there is left out too: a small bias towards fewer samples, not
            // towards shorter delays).
            let after = isWindowed && !changes.insertedItems.isEmpty ? replica.snapshot : nil
            let sectionStarts = after.map { snapshot in
                snapshot.sections.reduce(into: [0]) { starts, section in
                    starts.append(starts.last! + section.numberOfObjects)
                }
            }
            let tail = (after?.count ?? 0) - changes.deletedItems.count
            for item in changes.insertedItems {
                guard let sequence = stampedSequence(in: item.entity.title) else { continue }
                seen.append(sequence)
                if let sectionStarts, sectionStarts[item.indexPath.section] + item.indexPath.item >= tail {
                    slid.append(sequence)
                }
            }
            if !changes.movedItems.isEmpty {
                let after = replica.snapshot
                for move in changes.movedItems {
                    if let sequence = stampedSequence(in: after.object(at: move.to).title) { seen.append(sequence) }
                }
            }
        }
        let time = now()
        state.withLockedValue { state in
            state.updates += 1
            if state.awaitsFirst {
                state.awaitsFirst = false
                if update.base != nil { state.catchUps += 1 } else if state.updates > 1 { state.wholes += 1 }
            }
            for sequence in seen where sequence < log.count && state.seen[sequence] == nil {
                state.seen[sequence] = time
                if slid.contains(sequence) { state.slid.insert(sequence) }
            }
        }
    }
}
