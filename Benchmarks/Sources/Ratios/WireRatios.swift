import BenchmarkSupport
import Foundation
import LiveResults

/// The targets of results over the wire: the size of a one-entity update, a replica's apply
/// at two sizes, a catch-up against the updates it replaces, and what an open update stream adds to an
/// observed controller.
@MainActor
struct WireRatios {
    let options: RatioOptions

    func rows() async throws -> [RatioRow] {
        try await updateSize() + replicaApply() + catchUp() + streamCost()
    }

    /// A controller at `count` rows with an update stream whose whole results were read.
    private func streamed(count: Int) async throws -> (EventScenario<LiveResultsDesign>, ResultsUpdates<Row>.Iterator) {
        let scenario = try await EventScenario<LiveResultsDesign>(count: count)
        let updates = scenario.design.controller.updates().makeAsyncIterator()
        _ = await updates.next()
        return (scenario, updates)
    }

    /// Single events at the large size: the bytes of each update beyond the JSON of the entities it
    /// carries; the largest over the mixed events.
    private func updateSize() async throws -> [RatioRow] {
        let label = Dataset.label(options.large)
        Progress.say("the JSON of single-event updates at \(label)")
        let (scenario, updates) = try await streamed(count: options.large)
        let encoder = JSONEncoder()
        var largest = 0
        var largestEntity = 0
        for event in scenario.nextEvents(1_000) {
            guard scenario.design.apply([event]) > 0, let update = await updates.next(),
                case .changes(_, let changes) = update.content
            else { continue }
            let entities = try (changes.insertedItems + changes.updatedItems).reduce(0) {
                $0 + (try encoder.encode($1.entity).count)
            }
            let overhead = try encoder.encode(update).count - entities
            if overhead > largest { (largest, largestEntity) = (overhead, entities) }
        }
        return [
            RatioRow(
                name: "One-event update at \(label): bytes beyond its entities' JSON (largest of 1,000)",
                measured: "\(largest + largestEntity) bytes with \(largestEntity) of entities",
                value: Double(largest), unit: " B", target: .atMost(200))
        ]
    }

    /// The updates of `count` single events at `size` rows, and a replica holding the results before them.
    private func updates(count: Int, size: Int) async throws -> (ResultsReplica<Row>, [ResultsUpdate<Row>]) {
        let scenario = try await EventScenario<LiveResultsDesign>(count: size)
        let stream = scenario.design.controller.updates(bufferLimit: count + 1).makeAsyncIterator()
        let replica = ResultsReplica<Row>()
        try replica.apply(await stream.next()!)
        var updates: [ResultsUpdate<Row>] = []
        for event in scenario.nextEvents(count) where scenario.design.apply([event]) > 0 {
            updates.append(await stream.next()!)
        }
        return (replica, updates)
    }

    /// A replica applying single-event updates at the large size against the small size.
    private func replicaApply() async throws -> [RatioRow] {
        let perRound = options.liveEvents / 4
        let count = perRound * (options.repetitions + 1)
        Progress.say(
            "a replica applying \(count) single-event updates at \(Dataset.label(options.large)) and at \(Dataset.label(options.small))"
        )
        var perUpdate: [Duration] = []
        for size in [options.large, options.small] {
            let (replica, updates) = try await self.updates(count: count, size: size)
            var rounds: [Duration] = []
            for round in stride(from: 0, to: updates.count - perRound + 1, by: perRound) {
                let slice = updates[round..<round + perRound]
                rounds.append(
                    try await Stopwatch.measure { for update in slice { try replica.apply(update) } } / perRound)
            }
            perUpdate.append(rounds.dropFirst().sorted()[rounds.count / 2 - 1])
        }
        return [
            RatioRow(
                name:
                    "Replica apply per single-event update, \(Dataset.label(options.large)) / \(Dataset.label(options.small))",
                measured:
                    "\(perUpdate[0].formatted) at \(Dataset.label(options.large)), \(perUpdate[1].formatted) at \(Dataset.label(options.small))",
                value: perUpdate[0] / perUpdate[1], unit: "×", target: .atMost(3))
        ]
    }

    /// A resume after 100 events at the large size, encoded: its bytes against the whole results', and
    /// its time (open the stream, read and encode the catch-up) against reading and encoding the 100
    /// updates one by one from a stream that was open.
    private func catchUp() async throws -> [RatioRow] {
        let label = Dataset.label(options.large)
        Progress.say("a catch-up after 100 events at \(label), and the 100 updates one by one")
        let (scenario, updates) = try await streamed(count: options.large)
        let controller = scenario.design.controller
        let encoder = JSONEncoder()
        let wholeBytes = try encoder.encode(controller.wholeResults()).count
        var catchUpBytes = 0
        var times: [(catchUp: Duration, oneByOne: Duration)] = []
        for _ in 0...options.repetitions {
            let version = controller.version
            scenario.applyEach(scenario.nextEvents(100))
            let catchUp = try await Stopwatch.measure {
                let resumed = controller.updates(since: version).makeAsyncIterator()
                let data = try encoder.encode(await resumed.next()!)
                catchUpBytes = Swift.max(catchUpBytes, data.count)
                return data.count
            }
            let oneByOne = try await Stopwatch.measure {
                var bytes = 0
                while let update = await updates.next() {
                    bytes += try encoder.encode(update).count
                    if update.version == controller.version { break }
                }
                return bytes
            }
            times.append((catchUp, oneByOne))
        }
        let measured = times.dropFirst()
        let catchUpTime = measured.map(\.catchUp).sorted()[measured.count / 2]
        let oneByOneTime = measured.map(\.oneByOne).sorted()[measured.count / 2]
        return [
            RatioRow(
                name: "Catch-up after 100 events at \(label): whole results' bytes / catch-up's",
                measured: "\(wholeBytes / 1_000) kB whole, \(catchUpBytes) B catch-up (largest)",
                value: Double(wholeBytes) / Double(catchUpBytes), unit: "×", target: .atLeast(1_000)),
            RatioRow(
                name: "Catch-up after 100 events at \(label) / the 100 updates one by one (read and encoded)",
                measured: "\(catchUpTime.formatted) catch-up, \(oneByOneTime.formatted) one by one",
                value: catchUpTime / oneByOneTime, unit: "×", target: .atMost(2)),
        ]
    }

    /// Single events at the medium size with an open update stream whose updates are read as they come,
    /// against the same events on a controller observed by a delegate that does nothing.
    private func streamCost() async throws -> [RatioRow] {
        let label = Dataset.label(options.medium)
        Progress.say("single events at \(label) with an update stream read, and with a delegate")
        let (streamed, updates) = try await streamed(count: options.medium)
        let delegated = try await EventScenario<LiveResultsDesign>(count: options.medium)
        let delegate = NoOpDelegate()
        delegated.design.controller.delegate = delegate
        let events = options.liveEvents
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                {
                    let batch = streamed.nextEvents(events)
                    return await Stopwatch.measure {
                        for event in batch where streamed.design.apply([event]) > 0 { _ = await updates.next() }
                    } / events
                },
                {
                    let batch = delegated.nextEvents(events)
                    return await Stopwatch.measure { delegated.applyEach(batch) } / events
                },
            ])
        withExtendedLifetime(delegate) {}
        return [
            RatioRow(
                name: "Single events at \(label), an update stream read / a delegate",
                measured: "\(times[0].formatted) with the stream, \(times[1].formatted) with the delegate",
                value: times[0] / times[1], unit: "×", target: .atMost(1.5))
        ]
    }
}
