import Foundation
import Testing

@testable import LiveResults

/// The Linux source against pressure files the tests write in a temporary directory.
@Suite("Linux memory pressure source", .timeLimit(.minutes(5)), .tags(.concurrent))
struct LinuxMemoryPressureSourceTests {
    typealias Reading = LinuxMemoryPressureSource.Reading

    /// A PSI file in a fresh temporary directory.
    final class PressureFile: Sendable {
        let directory: URL
        let path: String

        init(someAvg10: Double? = 0) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("psi-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("memory.pressure").path
            if let someAvg10 { try write(someAvg10: someAvg10) }
        }

        func write(someAvg10: Double) throws {
            let contents = """
                some avg10=\(String(format: "%.2f", someAvg10)) avg60=1.50 avg300=0.25 total=123456
                full avg10=0.00 avg60=0.00 avg300=0.00 total=789

                """
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: Parsing

    @Test func parsesBothLines() {
        let reading = Reading(
            parsing: """
                some avg10=12.34 avg60=5.00 avg300=0.10 total=987654
                full avg10=1.00 avg60=0.50 avg300=0.01 total=4321

                """)
        #expect(reading?.some == .init(avg10: 12.34, avg60: 5, avg300: 0.1, total: 987_654))
        #expect(reading?.full == .init(avg10: 1, avg60: 0.5, avg300: 0.01, total: 4321))
    }

    @Test func parsesAFileWithoutFullLine() {
        let reading = Reading(parsing: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0")
        #expect(reading?.some.avg10 == 0)
        #expect(reading?.full == nil)
    }

    @Test(arguments: [
        "", "garbage", "full avg10=1.00 avg60=0.00 avg300=0.00 total=0",
        "some avg10=abc avg60=0.00 avg300=0.00 total=0", "some avg10=1.00 avg60=0.00 total=0",
    ])
    func rejectsContentsWithoutAWellFormedSomeLine(contents: String) {
        #expect(Reading(parsing: contents) == nil)
    }

    // MARK: Paths

    @Test func triesTheCgroupV2FileOfTheCurrentCgroupFirst() {
        let cgroup = "12:memory:/legacy\n0::/user.slice/app.service\n"
        #expect(
            LinuxMemoryPressureSource.defaultPaths(cgroup: cgroup) == [
                "/sys/fs/cgroup/user.slice/app.service/memory.pressure",
                "/sys/fs/cgroup/unified/user.slice/app.service/memory.pressure",
                "/proc/pressure/memory",
            ])
        #expect(
            LinuxMemoryPressureSource.defaultPaths(cgroup: "0::/\n") == [
                "/sys/fs/cgroup/memory.pressure", "/sys/fs/cgroup/unified/memory.pressure", "/proc/pressure/memory",
            ])
    }

    @Test func fallsBackToTheSystemFileWithoutCgroupV2() {
        #expect(LinuxMemoryPressureSource.defaultPaths(cgroup: "4:memory:/docker/abc\n") == ["/proc/pressure/memory"])
        #expect(LinuxMemoryPressureSource.defaultPaths(cgroup: nil) == ["/proc/pressure/memory"])
    }

    @Test func reportsTheTriedPathWhenItIsMissingOrNotPressureInformation() throws {
        let file = try PressureFile(someAvg10: nil)
        #expect(throws: LinuxMemoryPressureSource.Unavailable(triedPaths: [file.path])) {
            try LinuxMemoryPressureSource(path: file.path)
        }
        try "not pressure information".write(toFile: file.path, atomically: true, encoding: .utf8)
        let error = #expect(throws: LinuxMemoryPressureSource.Unavailable.self) {
            try LinuxMemoryPressureSource(path: file.path)
        }
        #expect(error?.triedPaths == [file.path])
        #expect(error?.description.contains(file.path) == true)
    }

    @Test func availabilityNamesTheDefaultFileOrEveryPathTried() throws {
        switch LinuxMemoryPressureSource.availability {
        case .success(let path):
            #expect(LinuxMemoryPressureSource.defaultPaths().contains(path))
            #expect(try LinuxMemoryPressureSource().path == path)
        case .failure(let unavailable):
            #expect(unavailable.triedPaths == LinuxMemoryPressureSource.defaultPaths())
            #expect(throws: unavailable) { try LinuxMemoryPressureSource() }
        }
    }

    // MARK: Signalling

    @Test func signalsOnceEachTimeThePressureRisesAboveTheThreshold() throws {
        let file = try PressureFile(someAvg10: 5)
        let source = try LinuxMemoryPressureSource(path: file.path, threshold: 10, interval: .seconds(3600))
        let signals = Locked(0)
        let subscription = source.subscribe { signals.withLock { $0 += 1 } }
        var observed: [Int] = []
        for average in [5.0, 20, 30, 10, 25, 9.99, 10.01, 10.01, 0, 50] {
            try file.write(someAvg10: average)
            source.check()
            observed.append(signals.withLock { $0 })
        }
        // Above 10 after below it signals; staying above, or touching 10 exactly, does not re-arm.
        #expect(observed == [0, 1, 1, 1, 1, 1, 2, 2, 2, 3])
        #expect(source.currentReading?.some.avg10 == 50)
        subscription.cancel()
    }

    @Test func anUnreadableFileChangesNothing() throws {
        let file = try PressureFile(someAvg10: 50)
        let source = try LinuxMemoryPressureSource(path: file.path, interval: .seconds(3600))
        let signals = Locked(0)
        let subscription = source.subscribe { signals.withLock { $0 += 1 } }
        source.check()
        try FileManager.default.removeItem(atPath: file.path)
        source.check()
        try file.write(someAvg10: 60)
        source.check()
        #expect(signals.withLock { $0 } == 1, "still above: the missing reading did not re-arm")
        subscription.cancel()
    }

    /// Real time is what is tested: the source polls its file on its own interval (2 ms, on the continuous
    /// clock); each sleep spans many polls, which a change of the file would show.
    @Test func pollsWhileSubscribedAndStopsAfterTheLastSubscriptionEnds() async throws {
        let file = try PressureFile(someAvg10: 1)
        let signals = Locked(0)
        var subscription: EventSubscription? = try LinuxMemoryPressureSource(
            path: file.path, threshold: 10, interval: .milliseconds(2)
        ).subscribe { signals.withLock { $0 += 1 } }  // the subscription keeps the source alive
        try await Task.sleep(for: .milliseconds(30))
        #expect(signals.withLock { $0 } == 0)

        try file.write(someAvg10: 42)
        #expect(await EventHarness.eventually { signals.withLock { $0 } == 1 })
        try file.write(someAvg10: 3)
        try await Task.sleep(for: .milliseconds(30))
        try file.write(someAvg10: 43)
        #expect(await EventHarness.eventually { signals.withLock { $0 } == 2 })

        _ = subscription
        subscription = nil
        try file.write(someAvg10: 3)
        try await Task.sleep(for: .milliseconds(30))
        try file.write(someAvg10: 44)
        try await Task.sleep(for: .milliseconds(60))
        #expect(signals.withLock { $0 } == 2, "no polling after the last subscription ended")
    }
}
