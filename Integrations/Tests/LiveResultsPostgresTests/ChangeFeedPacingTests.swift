import Testing

@testable import LiveResultsPostgres

/// The waits of a feed's reading task between reads, from what each read found and how long it took.
@Suite("PostgresChangeFeed: the wait between reads")
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
}
