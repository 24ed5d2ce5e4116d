import Foundation
import LiveResults
import LiveResultsHTTP
import LiveResultsTestSupport
import NIOConcurrencyHelpers
import Testing

private struct ItemsPage: APIRequest {
    struct Response: Decodable, Sendable {
        @ResponseBody<[Item]> var items
        @ResponseHeader<LinkHeaderStrategy> var link: LinkHeader?
        @NestedResponse var cursor: CursorHeader
    }
    @RequestPath var path = "/items"
    @QueryItem var page: Int? = nil
    @QueryItem var size: Int? = nil
    @QueryItem var offset: Int? = nil
    @QueryItem var after: Int? = nil
    @QueryItem var limit: Int? = nil
}

/// A paging wrapper: the next cursor in a header of its own.
private struct CursorHeader: Decodable, Sendable {
    @ResponseHeader<DefaultHeaderStrategyOptional> var xNextCursor: String?
}

private struct Slow: APIRequest {
    struct Response: Decodable, Sendable {
        @ResponseBody<Item> var item
    }
    @RequestPath var path = "/slow"
}

/// Counts the attempts a transport makes, for the retries.
private final class CountingTransport: HTTPTransport {
    let wrapped: any HTTPTransport
    let attempts = NIOLockedValueBox(0)

    init(wrapped: any HTTPTransport) {
        self.wrapped = wrapped
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        attempts.withLockedValue { $0 += 1 }
        return try await wrapped.send(request)
    }

    func stream(_ request: HTTPTransportRequest) async throws -> HTTPTransportStream {
        try await wrapped.stream(request)
    }
}

/// Fetch definitions from typed requests: numbered, offset, keyed and cursor pages; retries.
@Suite("Fetch definitions and pages", .timeLimit(.minutes(2)))
struct PagesTests {
    private static let allIDs = Array(1...Fixture.itemCount)

    @Test("numbered pages load page after page until a short one")
    func numbered() async throws {
        try await paged { client in
            .numberedPages(client: client, pageSize: 10) {
                ItemsPage(page: $0, size: 10)
            } entities: {
                $0.items
            }
        }
    }

    @Test("offset pages load until a short one")
    func offset() async throws {
        try await paged { client in
            .offsetPages(client: client, limit: 10) {
                ItemsPage(offset: $0, limit: $1)
            } entities: {
                $0.items
            }
        }
    }

    @Test("keyed pages ask for the entities after the last key")
    func keyed() async throws {
        try await paged { client in
            .keyedPages(client: client, by: \.id, limit: 10) {
                ItemsPage(after: $0, limit: 10)
            } entities: {
                $0.items
            }
        }
    }

    @Test("cursor pages read the next cursor from a Link header")
    func linkCursor() async throws {
        try await paged { client in
            .cursorPages(client: client) { (cursor: String?) in
                ItemsPage(after: cursor.flatMap { Int($0) }, limit: 10)
            } page: {
                ($0.items, $0.link?.queryValue("after"))
            }
        }
    }

    @Test("cursor pages read the next cursor from a nested response")
    func nestedCursor() async throws {
        try await paged { client in
            .cursorPages(client: client) { (cursor: Int?) in
                ItemsPage(after: cursor, limit: 10)
            } page: {
                ($0.items, $0.cursor.xNextCursor.flatMap { Int($0) })
            }
        }
    }

    @Test("a plain fetch definition reads the entities of one request")
    func wholeFetch() async throws {
        try await HTTPTestServer.serving(Fixture.router(Recorder())) { port in
            let client = TransportKind.urlSession.client("http://127.0.0.1:\(port)")
            let controller = FetchedResultsController(
                definition: FetchDefinition(client: client, request: ItemsPage(limit: 100)) { $0.items },
                sortDescriptors: [SortDescriptor(\Item.id)])
            try await controller.performFetch()
            #expect(controller.fetchedObjects.map(\.id) == Self.allIDs)
        }
    }

    @Test("a timeout is retried by the policy, then reported", arguments: TransportKind.allCases)
    func timeoutRetried(transport: TransportKind) async throws {
        let recorder = Recorder()
        try await HTTPTestServer.serving(Fixture.router(recorder)) { port in
            let counting = CountingTransport(wrapped: transport.transport)
            let client = HTTPAPIClient(
                baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: counting, timeout: .seconds(1))
            let definition = FetchDefinition<Item>(
                client: client, request: Slow(),
                retry: RetryPolicy(maxAttempts: 2, backoff: Backoff(initialDelay: .zero))
            ) { $0.item.map { [$0] } }
            let controller = FetchedResultsController(
                definition: definition, sortDescriptors: [SortDescriptor(\Item.id)])
            await #expect(throws: HTTPAPIError.timedOut(.seconds(1))) { try await controller.performFetch() }
            #expect(counting.attempts.withLockedValue { $0 } == 2)
            // The client gave up on each after a second: on a loaded machine the second can be given up on before
            // the server has read it (seen in the whole suite's parallel run), so only the first is sure to arrive.
            #expect(await eventually { (1...2).contains(recorder.count(path: "/slow")) })
        }
    }

    @Test("a body that stalls after the head times out", arguments: TransportKind.allCases)
    func stalledBody(transport: TransportKind) async throws {
        try await HTTPTestServer.serving(Fixture.router(Recorder())) { port in
            let client = transport.client("http://127.0.0.1:\(port)", timeout: .seconds(1))
            var request = Slow()
            request.path = "/stalled"
            await #expect(throws: HTTPAPIError.timedOut(.seconds(1))) { try await client.send(request) }
        }
    }

    @Test("a body that keeps trickling in past the timeout times out", arguments: TransportKind.allCases)
    func tricklingBody(transport: TransportKind) async throws {
        try await HTTPTestServer.serving(Fixture.router(Recorder())) { port in
            let started = ContinuousClock.now
            await #expect(throws: HTTPAPIError.timedOut(.seconds(1))) {
                try await transport.transport.send(
                    HTTPTransportRequest(
                        method: "GET", url: URL(string: "http://127.0.0.1:\(port)/trickle")!,
                        timeout: .seconds(1)))
            }
            #expect(ContinuousClock.now - started < .seconds(4))
        }
    }

    @Test("a body over the transport's maximum size fails the exchange", arguments: TransportKind.allCases)
    func bodyOverMaximum(transport: TransportKind) async throws {
        let small: any HTTPTransport =
            switch transport {
            case .urlSession: URLSessionTransport(maximumBodySize: 1 << 20)
            case .asyncHTTPClient: AsyncHTTPClientTransport(maximumBodySize: 1 << 20)
            }
        try await HTTPTestServer.serving(Fixture.router(Recorder())) { port in
            let request = HTTPTransportRequest(method: "GET", url: URL(string: "http://127.0.0.1:\(port)/large")!)
            #expect((try? await transport.transport.send(request))?.body.count == 2 << 20)
            await #expect {
                try await small.send(request)
            } throws: { error in
                if case .transport = error as? HTTPAPIError { true } else { false }
            }
        }
    }

    @Test("a stream whose head does not come within the timeout fails with it", arguments: TransportKind.allCases)
    func streamHeadTimeout(transport: TransportKind) async throws {
        try await HTTPTestServer.serving(Fixture.router(Recorder())) { port in
            // The server answers after 3 seconds: a stream that got its head would not throw. (No bound on the
            // time taken: in the whole suite's parallel run on a loaded machine the error came 2.9 s after the
            // start.)
            _ = await #expect(throws: HTTPAPIError.timedOut(.seconds(1))) {
                try await transport.transport.stream(
                    HTTPTransportRequest(
                        method: "GET", url: URL(string: "http://127.0.0.1:\(port)/slow")!,
                        timeout: .seconds(1)))
            }
        }
    }

    @Test("a refused connection is retried by the policy, then reported", arguments: TransportKind.allCases)
    func refusedRetried(transport: TransportKind) async throws {
        let port = try await HTTPTestServer.serving(Fixture.router(Recorder())) { $0 }  // a port nobody listens on now
        let counting = CountingTransport(wrapped: transport.transport)
        let client = HTTPAPIClient(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: counting, timeout: .seconds(2))
        let definition = FetchDefinition<Item>(
            client: client, request: ItemsPage(),
            retry: RetryPolicy(maxAttempts: 3, backoff: Backoff(initialDelay: .zero))
        ) { $0.items }
        let controller = FetchedResultsController(definition: definition, sortDescriptors: [SortDescriptor(\Item.id)])
        do {
            try await controller.performFetch()
            Issue.record("a fetch from a closed port succeeded")
        } catch let error as HTTPAPIError {
            guard case .transport = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
        }
        #expect(counting.attempts.withLockedValue { $0 } == 3)
        guard case .failed = controller.state else {
            Issue.record("state \(controller.state)")
            return
        }
    }

    /// Loads every page of `definition` from the fixture and checks the pages.
    private func paged(_ definition: @escaping @Sendable (HTTPAPIClient) -> FetchDefinition<Item>) async throws {
        let recorder = Recorder()
        try await HTTPTestServer.serving(Fixture.router(recorder)) { port in
            let client = TransportKind.asyncHTTPClient.client("http://127.0.0.1:\(port)")
            let controller = FetchedResultsController(
                definition: definition(client), sortDescriptors: [SortDescriptor(\Item.id)])
            try await controller.performFetch()
            #expect(controller.fetchedObjects.map(\.id) == Array(1...10))
            #expect(controller.hasNextPage)
            let second = try await controller.loadNextPage()
            #expect(second.insertedItems.count == 10)
            try await controller.loadNextPage()
            #expect(controller.fetchedObjects.map(\.id) == Self.allIDs)
            #expect(!controller.hasNextPage)
            #expect(try await controller.loadNextPage().isEmpty)
            #expect(recorder.count(path: "/items") == 3)
        }
    }
}
