import LiveResultsTestSupport
import NIOConcurrencyHelpers
import PostgresNIO
import Testing

@testable import LiveResultsPostgres

/// The waits of a feed's reading task between reads, from what each read found and how long it took.
@Suite("PostgresChangeFeed: the wait between reads", .timeLimit(.minutes(2)))
struct ChangeFeedPacingTests {
    @Test("Reads that find nothing keep the interval for as long as the maximum, then double the wait up to it")
    func backoff() {
        var pacing = _ReadPacing(interval: .milliseconds(20), maximum: .seconds(1))
        let quiet = (0..<50).map { _ in pacing.wait(after: .nothing) }
        #expect(quiet == Array(repeating: .milliseconds(20), count: 50))
        let idle = (0..<8).map { _ in pacing.wait(after: .nothing) / .milliseconds(1) }
        #expect(idle == [20, 40, 80, 160, 320, 640, 1000, 1000])
    }

    @Test("The first read that finds changes brings the wait back to the interval, and the quiet time to zero")
    func snapBack() {
        var pacing = _ReadPacing(interval: .milliseconds(20), maximum: .milliseconds(100))
        let idle = (0..<8).map { _ in pacing.wait(after: .nothing) / .milliseconds(1) }
        #expect(idle == [20, 20, 20, 20, 20, 20, 40, 80])
        #expect(pacing.wait(after: .changes) == .milliseconds(20))
        let again = (0..<7).map { _ in pacing.wait(after: .nothing) / .milliseconds(1) }
        #expect(again == [20, 20, 20, 20, 20, 20, 40])
    }

    @Test("A full read is followed by the next at once, and leaves the quiet time as it was")
    func fullReads() {
        var pacing = _ReadPacing(interval: .milliseconds(20), maximum: .milliseconds(40))
        _ = (0..<2).map { _ in pacing.wait(after: .nothing) }
        #expect(pacing.wait(after: .full) == .zero)
        #expect(pacing.wait(after: .nothing) == .milliseconds(20))
        #expect(pacing.wait(after: .nothing) == .milliseconds(40))
    }

    @Test("A maximum equal to the interval: the wait never grows")
    func fixedInterval() {
        var pacing = _ReadPacing(interval: .milliseconds(50), maximum: .milliseconds(50))
        let waits = (0..<4).map { _ in pacing.wait(after: .nothing) }
        #expect(waits == Array(repeating: .milliseconds(50), count: 4))
    }

    @Test("After a read that found changes, the next starts one interval after it started, with a floor of a quarter")
    func startToStart() {
        var pacing = _ReadPacing(interval: .milliseconds(20), maximum: .seconds(1))
        #expect(pacing.wait(after: .changes, elapsed: .milliseconds(8)) == .milliseconds(12))
        #expect(pacing.wait(after: .changes, elapsed: .milliseconds(19)) == .milliseconds(5))
        #expect(pacing.wait(after: .changes, elapsed: .milliseconds(60)) == .milliseconds(5))
        #expect(pacing.wait(after: .full, elapsed: .milliseconds(8)) == .zero)
    }

    @Test("A step is timed on the feed's clock: the wait after it is the interval less the step's time")
    func stepOnClock() {
        let clock = ManualClock()
        var pacing = _ReadPacing(interval: .milliseconds(20), maximum: .seconds(1), clock: _FeedClock(clock))
        pacing.startStep()
        clock.advance(by: .milliseconds(8))
        #expect(pacing.waitAfterStep(.changes) == .milliseconds(12))
        pacing.startStep()
        clock.advance(by: .milliseconds(30))
        #expect(pacing.waitAfterStep(.changes) == .milliseconds(5))
        pacing.startStep()
        #expect(pacing.waitAfterStep(.nothing) == .milliseconds(20))
    }

    /// A feed that never reads: its client is not run, and no subscription starts a reading task; the test drives
    /// its state machine as the reading task would, and the feed's waits on `clock`.
    func idleFeed(clock: ManualClock) -> PostgresChangeFeed {
        let client = PostgresClient(
            configuration: PostgresTestServer(host: "127.0.0.1", port: 1, username: "u", password: nil, database: "d")
                .configuration())
        let feed = PostgresChangeFeed(
            client: client, publication: "p", readInterval: .milliseconds(20), maximumReadInterval: .seconds(1),
            clock: clock)
        let subscription = _FeedSubscription(
            table: ObjectIdentifier(feed), qualifiedTable: "t", idColumn: "id", deliver: { _ in }, report: { _ in },
            afterDeliveries: { $0() })
        // Run 1, as if its task had started.
        _ = feed.machine.withLockedValue { $0.subscribe(subscription) }
        return feed
    }

    /// Starts, in a task of its own, the wait of `duration` that the reading task of `feed`'s run 1 makes.
    ///
    /// - Returns: A flag set once the wait ended.
    func startPause(of feed: PostgresChangeFeed, for duration: Duration) -> Flag {
        let ended = Flag()
        Task {
            await feed.pause(run: 1, for: duration)
            ended.set()
        }
        return ended
    }

    @Test("The reading task's wait ends when the feed's clock reaches it, not before")
    func pauseOnClock() async {
        let clock = ManualClock()
        let feed = idleFeed(clock: clock)
        let ended = startPause(of: feed, for: .seconds(1))
        #expect(await clock.waitForSleepers())
        #expect(feed.machine.withLockedValue { $0.isBackingOff })
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleepers == 1)
        #expect(!ended.isSet)
        clock.advance(by: .milliseconds(1))
        #expect(await eventually { ended.isSet })
        #expect(clock.now.offset == .seconds(1))
        #expect(!feed.machine.withLockedValue { $0.isBackingOff })
    }

    @Test("wake() ends a back-off at once; a wait of the read interval only a fetch's wake ends")
    func wakeEndsBackOff() async {
        let clock = ManualClock()
        let feed = idleFeed(clock: clock)
        let backOff = startPause(of: feed, for: .seconds(1))
        #expect(await clock.waitForSleepers())
        feed.wake()
        #expect(await eventually { backOff.isSet })
        // The timer's sleep is cancelled with the wait.
        #expect(await eventually { clock.sleepers == 0 })
        let interval = startPause(of: feed, for: .milliseconds(20))
        #expect(await clock.waitForSleepers())
        feed.wake()
        #expect(clock.sleepers == 1)
        #expect(!interval.isSet)
        feed.wakeReader()
        #expect(await eventually { interval.isSet })
        #expect(clock.now.offset == .zero)
    }

    @Test("Reads that find nothing back off on the feed's clock, up to the maximum; a fetch's wake ends the wait")
    func backOffOnClock() async {
        let clock = ManualClock()
        let feed = idleFeed(clock: clock)
        var pacing = _ReadPacing(interval: feed.readInterval, maximum: feed.maximumReadInterval, clock: feed.clock)
        var waits: [Duration] = []
        // As the reading task: a step that finds nothing, then its wait, which only the clock ends.
        for _ in 0..<100 where waits.last != feed.maximumReadInterval {
            let start = pacing.startStep()
            let step = startPause(of: feed, for: pacing.waitAfterStep(.nothing))
            #expect(await clock.waitForSleepers())
            clock.advanceToNextDeadline()
            guard await eventually({ step.isSet }) else {
                Issue.record("a wait did not end at its deadline")
                return
            }
            waits.append(clock.now.offset - start)
        }
        #expect(waits.count == 57)
        #expect(waits.prefix(51).allSatisfy { $0 == .milliseconds(20) })
        #expect(waits.suffix(6).map { $0 / .milliseconds(1) } == [40, 80, 160, 320, 640, 1000])
        // Backed off: a fetch that waits for the feed ends the wait without the clock.
        let start = clock.now
        let wait = startPause(of: feed, for: .seconds(1))
        #expect(await clock.waitForSleepers())
        #expect(feed.machine.withLockedValue { $0.isBackingOff })
        feed.wakeReader()
        #expect(await eventually { wait.isSet })
        #expect(clock.now == start)
    }
}
