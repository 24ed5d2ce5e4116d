import Foundation
import LiveResults
import LiveResultsHTTP
import LiveResultsTestSupport
import NIOConcurrencyHelpers
import Testing

/// `RemoteResults` against streams that go wrong: each failure is reported, the replica keeps what it had,
/// and it reconnects with `Last-Event-ID`.
@Suite("RemoteResults: bad streams", .timeLimit(.minutes(2)))
struct RemoteResultsTests {
    /// Two updates of a real controller: its whole results, then one change set; as JSON.
    private static func updates() async throws -> (whole: String, change: String, version: ResultsVersion) {
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: { [Item(id: 1, title: "one"), Item(id: 2, title: "two")] }),
            sortDescriptors: [SortDescriptor(\Item.id)])
        try await controller.performFetch()
        let updates = controller.updates().makeAsyncIterator()
        let whole = try #require(await updates.next())
        controller.apply(.inserted(Item(id: 3, title: "three")))
        let change = try #require(await updates.next())
        let encoder = JSONEncoder()
        return (
            String(decoding: try encoder.encode(whole), as: UTF8.self),
            String(decoding: try encoder.encode(change), as: UTF8.self), whole.version
        )
    }

    private static let quick = Backoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(100))

    @Test(
        "a stream cut mid-event, an event that is not an update, data that is not an update: reported, replica unchanged, reconnect",
        arguments: ["cut-data", "cut-before-blank-line", "foreign-event", "not-an-update", "gap"])
    func badStreams(kind: String) async throws {
        let (whole, change, version) = try await Self.updates()
        let first = "retry: 1000\n\n: heartbeat\n\nid: \(version)\ndata: \(whole)\n\n"
        let bad: String
        let expected: String
        switch kind {
        case "cut-data":
            bad = "id: x\ndata: " + change.prefix(change.count / 2)
            expected = "the stream ended in the middle of an event"
        case "cut-before-blank-line":
            bad = "id: x\ndata: \(change)\n"
            expected = "the stream ended in the middle of an event"
        case "foreign-event":
            bad = "event: ping\ndata: {}\n\n"
            expected = "an event that is not an update: an event named ping"
        case "not-an-update":
            bad = "data: {\"hello\": \"world\"}\n\n"
            expected = "an event that is not an update"
        default:
            // A change set whose base is not the replica's version.
            bad = "data: \(change.replacingOccurrences(of: version.description, with: "0000000000000000-9"))\n\n"
            expected = "the update applies to"
        }
        let recorder = Recorder()
        try await HTTPTestServer.serving(Fixture.router(recorder, streams: ["bad": first + bad])) { port in
            let diagnostics = NIOLockedValueBox<[String]>([])
            let remote = RemoteResults<Item>(
                client: TransportKind.asyncHTTPClient.client("http://127.0.0.1:\(port)"), path: "events/bad",
                backoff: Self.quick
            ) { diagnostic in diagnostics.withLockedValue { $0.append("\(diagnostic)") } }
            let checker = ContractChecker(observing: remote.observeChanges)
            remote.start()
            #expect(await eventually { recorder.count(path: "/events/bad") >= 2 }, "it reconnects")
            remote.stop()
            let seen = diagnostics.withLockedValue { $0 }
            #expect(seen.contains { $0.hasPrefix(expected) }, "\(seen)")
            #expect(remote.version == version, "the replica keeps the version of the last good update")
            #expect(remote.fetchedObjects.map(\.id) == [1, 2])
            #expect(checker.changeSets.count == 1)
            #expect(checker.violations.isEmpty)
            let requests = recorder.all.filter { $0.path == "/events/bad" }
            #expect(requests[0].header("Last-Event-ID") == nil)
            #expect(requests[1].header("Last-Event-ID") == version.description, "resumes from the replica's version")
            #expect(requests[1].header("Accept") == "text/event-stream")
        }
    }

    @Test(
        "a route that is not an event stream, and a refused connection: retried, then failed",
        arguments: TransportKind.allCases)
    func failsAfterRetries(transport: TransportKind) async throws {
        let recorder = Recorder()
        let port = try await HTTPTestServer.serving(Fixture.router(recorder)) { port in
            let remote = RemoteResults<Item>(
                client: transport.client("http://127.0.0.1:\(port)"), path: "canned/json", backoff: Self.quick,
                maximumFailures: 3)
            await remote.run()
            guard case .failed(let error) = remote.state else {
                Issue.record("state \(remote.state)")
                return port
            }
            #expect(error as? HTTPAPIError == .notAnEventStream(status: 200, contentType: "application/json"))
            #expect(recorder.count(path: "/canned/json") == 3)
            return port
        }
        let remote = RemoteResults<Item>(
            client: transport.client("http://127.0.0.1:\(port)", timeout: .seconds(2)), path: "events/none",
            backoff: Self.quick,
            maximumFailures: 2)
        await remote.run()
        guard case .failed(let error) = remote.state, case .transport = error as? HTTPAPIError else {
            Issue.record("state \(remote.state)")
            return
        }
    }

    @Test("CRLF line endings, comments, a source status event, and an update split over several data lines apply")
    func eventFraming() async throws {
        let (whole, change, version) = try await Self.updates()
        // JSON allows a line break between tokens: split each update after its first comma.
        func split(_ json: String) -> String {
            json.replacingOccurrences(of: ",", with: ",\r\ndata: ", options: [], range: json.range(of: ","))
        }
        let stream =
            ": hello\r\nretry: 50\r\n\r\nid: \(version)\r\ndata: \(split(whole))\r\n\r\n"
            + "event: source\ndata: {\"available\":false}\n\n"
            + "event: update\ndata: \(split(change))\n\n"
        let recorder = Recorder()
        try await HTTPTestServer.serving(Fixture.router(recorder, streams: ["framed": stream])) { port in
            let diagnostics = NIOLockedValueBox<[String]>([])
            let remote = RemoteResults<Item>(
                client: TransportKind.asyncHTTPClient.client("http://127.0.0.1:\(port)"), path: "events/framed",
                backoff: Self.quick
            ) { diagnostic in diagnostics.withLockedValue { $0.append("\(diagnostic)") } }
            remote.start()
            #expect(await eventually { remote.fetchedObjects.map(\.id) == [1, 2, 3] })
            remote.stop()
            #expect(!diagnostics.withLockedValue { $0 }.contains { $0.hasPrefix("an event that is not an update") })
        }
    }

    @Test("changes is an AsyncSequence of the change sets, and the observable model follows on the main actor")
    @MainActor
    func changesAndModel() async throws {
        let (whole, change, version) = try await Self.updates()
        let stream = "id: \(version)\ndata: \(whole)\n\nid: x\ndata: \(change)\n\n"
        let recorder = Recorder()
        try await HTTPTestServer.serving(Fixture.router(recorder, streams: ["good": stream])) { port in
            let remote = RemoteResults<Item>(
                client: TransportKind.urlSession.client("http://127.0.0.1:\(port)"), path: "events/good",
                backoff: Self.quick)
            let model = await ObservableResults(remote.replica)
            var changes = remote.changes.makeAsyncIterator()
            remote.start()
            let first = try #require(await changes.next())
            #expect(first.insertedItems.count == 2)
            let second = try #require(await changes.next())
            #expect(second.insertedItemIDs == [3])
            #expect(await eventually { await model.fetchedObjects.map(\.id) == [1, 2, 3] })
            #expect(await model.lastChanges == second)
            remote.stop()
            #expect(await eventually { if case .stopped = remote.state { true } else { false } })
        }
    }
}
