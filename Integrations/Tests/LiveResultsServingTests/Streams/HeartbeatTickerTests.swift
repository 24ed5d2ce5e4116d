import Foundation
import LiveResults
import LiveResultsTestSupport
import NIOConcurrencyHelpers
import Testing

@testable import LiveResultsServing

/// A stream's events as its writer reads them, on a clock the test advances: heartbeats after a silence of the
/// interval (not at fixed ticks), one ticker task for all the streams of the routes, and no task once they ended.
@Suite("Stream events and heartbeats", .timeLimit(.minutes(1)))
struct HeartbeatTickerTests {
    /// A controller of three rows, fetched.
    static func controller() async throws -> FetchedResultsController<Row> {
        let rows = (1...3).map { Row(id: Int64($0), title: "t\($0)", project: "Home", priority: $0) }
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: { rows }), sortDescriptors: [SortDescriptor(\Row.id)])
        try await controller.performFetch()
        return controller
    }

    /// A stream's reader: the events it read, and its queue, to see when it waits.
    final class Reader: Sendable {
        let events = NIOLockedValueBox<[String]>([])
        let queue = NIOLockedValueBox<_StreamQueue?>(nil)

        var count: Int { events.withLockedValue { $0.count } }
        var last: String? { events.withLockedValue { $0.last } }

        /// Whether the writer waits for a signal (it asked, and nothing was due).
        var isWaiting: Bool {
            guard let queue = queue.withLockedValue({ $0 }) else { return false }
            if case .waiting = queue.state { return true }
            return false
        }

        /// Reads the stream's events until it ends, as a writer does.
        func read(
            _ controller: FetchedResultsController<Row>, heartbeats: _HeartbeatTicker?, slot: _StreamSlot,
            options: LiveResultsOptions = LiveResultsOptions()
        ) async throws {
            try await _StreamEvent.withEvents(
                of: .whole(controller), since: nil, options: options, heartbeats: heartbeats, departure: nil,
                slot: slot
            ) { events in
                queue.withLockedValue { $0 = events.queue }
                while let event = await events.next() {
                    let name: String
                    switch event {
                    case .update: name = "update"
                    case .heartbeat: name = "heartbeat"
                    case .source(let available): name = "source \(available)"
                    case .shutdown: name = "shutdown"
                    }
                    self.events.withLockedValue { $0.append(name) }
                    if case .shutdown = event { return }
                }
            }
        }
    }

    /// Advances `clock` to the ticker's next wake and waits until it ticked and sleeps again.
    static func tick(_ clock: ManualClock) async {
        #expect(await clock.waitForSleepers(1))
        clock.advanceToNextDeadline()
        #expect(await eventually { clock.sleepers == 1 && clock.nextDeadline.map { $0 > clock.now } == true })
    }

    @Test("a heartbeat after a silence of the interval, counted from the last write, not at fixed ticks")
    func heartbeatAfterSilence() async throws {
        let controller = try await Self.controller()
        let clock = ManualClock()
        let heartbeats = _HeartbeatTicker(interval: .seconds(8), clock: clock)
        let endpoint = LiveResultsEndpoint(
            options: LiveResultsOptions(maximumStreams: 4), heldVersions: { HeldVersions() })
        let reader = Reader()
        let stream = Task { try await reader.read(controller, heartbeats: heartbeats, slot: endpoint.openStream()!) }
        #expect(await eventually { reader.count == 1 && reader.isWaiting })
        // Ticks every 2 s: silent at 2, 4 and 6, a heartbeat at 8.
        for _ in 0..<3 { await Self.tick(clock) }
        #expect(reader.count == 1)
        await Self.tick(clock)
        #expect(await eventually { reader.count == 2 && reader.isWaiting })
        #expect(reader.last == "heartbeat")
        #expect(clock.now == .init(offset: .seconds(8)))
        // An update at 10 writes: the silence starts again, so the next heartbeat is at 18, not 16.
        await Self.tick(clock)
        controller.apply(.deleted(1))
        #expect(await eventually { reader.count == 3 && reader.isWaiting })
        #expect(reader.last == "update")
        for _ in 0..<3 { await Self.tick(clock) }
        #expect(reader.count == 3)
        await Self.tick(clock)
        #expect(await eventually { reader.count == 4 })
        #expect(reader.last == "heartbeat")
        #expect(clock.now == .init(offset: .seconds(18)))
        endpoint.endStreams()
        try await stream.value
        #expect(reader.last == "shutdown")
    }

    @Test("one ticker task for every stream of the routes, and none once they ended")
    func oneTaskForAllStreams() async throws {
        let controller = try await Self.controller()
        let clock = ManualClock()
        let heartbeats = _HeartbeatTicker(interval: .seconds(4), clock: clock)
        let endpoint = LiveResultsEndpoint(
            options: LiveResultsOptions(maximumStreams: 8), heldVersions: { HeldVersions() })
        let readers = (0..<5).map { _ in Reader() }
        let streams = readers.map { reader in
            Task { try await reader.read(controller, heartbeats: heartbeats, slot: endpoint.openStream()!) }
        }
        #expect(await eventually { readers.allSatisfy { $0.count == 1 && $0.isWaiting } })
        // The streams' own waits are no sleepers: the ticker alone sleeps.
        #expect(await clock.waitForSleepers(1))
        #expect(clock.sleepers == 1)
        for _ in 0..<4 { await Self.tick(clock) }
        #expect(await eventually { readers.allSatisfy { $0.last == "heartbeat" } })
        endpoint.endStreams()
        for stream in streams { try await stream.value }
        #expect(endpoint.openStreams == 0)
        // The ticker wakes once more, finds no stream and ends.
        clock.advanceToNextDeadline()
        #expect(await eventually { clock.sleepers == 0 })
        // A new stream starts it again.
        let other = LiveResultsEndpoint(
            options: LiveResultsOptions(maximumStreams: 1), heldVersions: { HeldVersions() })
        let reader = Reader()
        let stream = Task { try await reader.read(controller, heartbeats: heartbeats, slot: other.openStream()!) }
        #expect(await eventually { reader.count == 1 && reader.isWaiting })
        #expect(await clock.waitForSleepers(1))
        other.endStreams()
        try await stream.value
        clock.advanceToNextDeadline()
        #expect(await eventually { clock.sleepers == 0 })
    }

    @Test("the source's status, its updates and the end reach a writer that waits, without heartbeats")
    func signalsWithoutHeartbeats() async throws {
        let controller = try await Self.controller()
        let status = LiveResultsSourceStatus()
        status.set(available: false)
        let endpoint = LiveResultsEndpoint(
            options: LiveResultsOptions(maximumStreams: 1), heldVersions: { HeldVersions() })
        let reader = Reader()
        let stream = Task {
            try await reader.read(
                controller, heartbeats: nil, slot: endpoint.openStream()!,
                options: LiveResultsOptions(sourceStatus: status))
        }
        #expect(await eventually { reader.count == 2 && reader.isWaiting })
        #expect(reader.events.withLockedValue { $0 } == ["source false", "update"])
        status.set(available: true)
        #expect(await eventually { reader.count == 3 && reader.isWaiting })
        controller.apply(.deleted(2))
        #expect(await eventually { reader.count == 4 && reader.isWaiting })
        stream.cancel()
        try await stream.value
        #expect(reader.events.withLockedValue { $0 } == ["source false", "update", "source true", "update"])
        #expect(endpoint.openStreams == 0)
    }
}
