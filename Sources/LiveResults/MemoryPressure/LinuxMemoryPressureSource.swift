import Foundation

/// A memory-pressure source that watches the Linux kernel's pressure stall information (PSI) for memory.
///
/// PSI says how much of the recent wall time tasks spent waiting for memory. The source reads a PSI
/// file every `interval` and signals when its `some avg10` value (the percentage of the last ten
/// seconds in which at least one task waited for memory) rises above `threshold`. It is edge-triggered:
/// after a signal it waits until the value falls below the threshold again before it can signal again,
/// so one long episode of pressure is one signal.
///
/// Without a `path`, it reads the pressure of the process's own cgroup (cgroup v2 `memory.pressure`,
/// found through `/proc/self/cgroup`: the limit that matters in a container or a systemd service), and
/// otherwise the system-wide `/proc/pressure/memory`. Where none of them is readable (PSI needs Linux
/// 4.20 or later, and some kernels turn it off; other systems never have it), initialization throws
/// ``Unavailable`` with the paths it tried. Check ``availability`` to decide up front:
///
/// ```swift
/// let pressure = try? LinuxMemoryPressureSource(threshold: 10)
/// let controller = FetchedResultsController(definition: definition, memoryPressure: pressure)
/// ```
///
/// Polling runs in a background task while the source has subscribers; a subscription keeps the
/// source alive, and cancelling the last one stops the polling. Handlers run on that task.
public final class LinuxMemoryPressureSource: MemoryPressureSource {
    /// Neither the given path nor any default path holds readable pressure stall information.
    public struct Unavailable: Error, Hashable, CustomStringConvertible {
        /// Every path that was tried, in order.
        public var triedPaths: [String]

        /// Creates the error for the paths that were tried.
        @inlinable public init(triedPaths: [String]) {
            self.triedPaths = triedPaths
        }

        /// Names the paths that were tried.
        @inlinable public var description: String {
            "memory pressure information is unavailable: no readable PSI file at \(triedPaths.joined(separator: ", "))"
        }
    }

    @usableFromInline struct State: Sendable {
        @usableFromInline var handlers = _Subscribers<@Sendable () -> Void>()
        /// Whether the last reading was above the threshold: the source signals again only after a
        /// reading below it.
        @usableFromInline var isAbove = false
        @usableFromInline var poller: Task<Void, Never>?

        @usableFromInline
        init(poller: Task<Void, Never>? = nil) {
            self.poller = poller
        }
    }

    /// The PSI file the source reads.
    public let path: String
    /// The `some avg10` percentage above which the source signals.
    public let threshold: Double
    /// The time between two readings.
    public let interval: Duration

    @usableFromInline let state = _Lock(State())

    /// Creates a source that reads `path`, or the default PSI files, every `interval`.
    ///
    /// - Parameters:
    ///   - path: A PSI file to read. `nil` reads the current cgroup's `memory.pressure` (cgroup v2,
    ///     also in hybrid mode under `/sys/fs/cgroup/unified`), else `/proc/pressure/memory`.
    ///   - threshold: The `some avg10` percentage, between 0 and 100, above which to signal.
    ///   - interval: The time between two readings.
    /// - Throws: ``Unavailable`` with the paths tried, when none holds readable pressure information.
    @inlinable public init(path: String? = nil, threshold: Double = 10, interval: Duration = .seconds(1))
        throws(Unavailable)
    {
        precondition((0...100).contains(threshold), "the threshold is a percentage")
        precondition(interval > .zero, "the interval is positive")
        let candidates = path.map { [$0] } ?? Self.defaultPaths()
        guard let readable = candidates.first(where: { Self.reading(at: $0) != nil }) else {
            throw Unavailable(triedPaths: candidates)
        }
        self.path = readable
        self.threshold = threshold
        self.interval = interval
    }

    /// The PSI file a source created without a path would read, or why there is none.
    ///
    /// - Complexity: Reads `/proc/self/cgroup` and up to three small files.
    @inlinable public static var availability: Result<String, Unavailable> {
        let candidates = defaultPaths()
        guard let readable = candidates.first(where: { reading(at: $0) != nil }) else {
            return .failure(Unavailable(triedPaths: candidates))
        }
        return .success(readable)
    }

    /// The pressure the file shows now, or `nil` if it cannot be read or parsed.
    ///
    /// - Complexity: Reads the file.
    @inlinable public var currentReading: Reading? {
        Self.reading(at: path)
    }

    /// Calls `handler` each time the pressure rises above the threshold, until the subscription is
    /// cancelled or released. The first subscription starts the polling; it keeps the source alive.
    ///
    /// - Complexity: O(1).
    @inlinable public func subscribe(_ handler: @escaping @Sendable () -> Void) -> EventSubscription {
        let id = state.withLock { state in
            if state.poller == nil {
                state.poller = Task.detached { [self] in await poll() }
            }
            return state.handlers.add(handler)
        }
        return EventSubscription { [self] in
            let poller = state.withLock { state -> Task<Void, Never>? in
                state.handlers.remove(id)
                guard state.handlers.isEmpty else { return nil }
                defer { (state.poller, state.isAbove) = (nil, false) }
                return state.poller
            }
            poller?.cancel()
        }
    }

    @inlinable func poll() async {
        while !Task.isCancelled {
            check()
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
        }
    }

    /// Reads the file once, and calls the handlers if the pressure has just risen above the threshold.
    /// An unreadable reading changes nothing.
    @inlinable func check() {
        guard let average = currentReading?.some.avg10 else { return }
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            if average > threshold, !state.isAbove {
                state.isAbove = true
                return state.handlers.all
            }
            if average < threshold { state.isAbove = false }
            return []
        }
        for handler in handlers {
            handler()
        }
    }

    /// The paths to try, best first: the cgroup v2 `memory.pressure` of the cgroup named in
    /// `/proc/self/cgroup` (unified or hybrid hierarchy), then the system-wide file.
    ///
    /// - Parameter cgroup: The contents of `/proc/self/cgroup`, or `nil` when it cannot be read.
    @inlinable static func defaultPaths(cgroup: String? = contents(of: "/proc/self/cgroup")) -> [String] {
        var paths: [String] = []
        let unified = cgroup?.split(separator: "\n").first { $0.hasPrefix("0::/") }
        if let relative = unified?.dropFirst(3) {
            let directory = relative.hasSuffix("/") ? String(relative.dropLast()) : String(relative)
            paths.append("/sys/fs/cgroup\(directory)/memory.pressure")
            paths.append("/sys/fs/cgroup/unified\(directory)/memory.pressure")
        }
        paths.append("/proc/pressure/memory")
        return paths
    }

    @inlinable static func reading(at path: String) -> Reading? {
        contents(of: path).flatMap(Reading.init(parsing:))
    }

    @inlinable static func contents(of path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }
}
