import BenchmarkSupport
import Foundation
import LiveResults

/// Drives one sectioned, sorted, paginated controller with random events and, interleaved at random,
/// everything else it can do, checking it all the way.
@MainActor
final class Soak {
    struct Options {
        var events = 100_000
        var seed: UInt64 = 1
        /// Resident memory is sampled every this many events (10⁶, or a tenth of a shorter run).
        var sampleInterval: Int { Swift.max(1, Swift.min(1_000_000, events / 10)) }
    }

    /// What a run found.
    struct Report {
        var events = 0
        var steps = 0
        var deliveries = 0
        var counts: [String: Int] = [:]
        /// Resident bytes at each sample, with the events applied then.
        var samples: [(events: Int, bytes: Int)] = []
    }

    let options: Options
    private var random: SplitMix64
    private let server: SoakServer
    private let store = InMemoryResultsStore()
    private let definition: FetchDefinition<SoakItem>
    private var controller: FetchedResultsController<SoakItem>
    private var reference = SoakReference()
    /// The reference when the controller paused: what its frozen snapshot shows.
    private var frozen: SoakReference?
    /// How many pages the controller shows.
    private var pagesShown = 0
    /// What the last save to the cache holds (the reference and pages then), for a cold start.
    private var saved: (reference: SoakReference, pages: Int)?
    /// Bumped by every fetch: an optimistic update from before a fetch rolls nothing back.
    private var generation = 0
    /// An optimistic update not settled yet: each touched id with its entry before and after, and the
    /// fetch generation it was made in.
    private typealias PendingUpdate = (
        update: OptimisticUpdate<SoakItem>, records: [(Int, SoakReference.Entry?, SoakReference.Entry?)],
        generation: Int
    )
    private var optimistic: [PendingUpdate] = []
    private var handlers: [SoakHandler] = []
    private var streams: [SoakStream] = []
    private var delegate: SoakDelegate?
    private var view: SoakView?
    private var retired: [SoakObserver] = []
    private var nextID = 0
    private var report = Report()

    init(options: Options) {
        self.options = options
        random = SplitMix64(seed: options.seed)
        var items: [SoakItem] = []
        for _ in 0..<300 { items.append(Self.item(id: items.count, using: &random)) }
        nextID = items.count
        let server = SoakServer(pageSize: 40, items: items)
        self.server = server
        definition = .numberedPages(
            from: 0, pageSize: server.pageSize,
            cache: ResultsCachePolicy(key: "soak", store: store, usage: .insteadOfFetching)
        ) { page in server.page(page) }
        controller = FetchedResultsController(
            definition: definition, sortDescriptors: [SortDescriptor(\SoakItem.score)],
            sectionNameKeyPath: \SoakItem.section)
    }

    static func item(id: Int, using random: inout SplitMix64) -> SoakItem {
        SoakItem(
            id: id, section: soakSections[Int(random.next() % UInt64(soakSections.count))],
            score: Int(random.next() % 12), title: "t\(random.next() % 4)")
    }

    private func chance(_ percent: UInt64) -> Bool { random.next() % 1000 < percent * 10 }
    private func below(_ bound: Int) -> Int { Int(random.next() % UInt64(Swift.max(1, bound))) }

    /// Runs the soak; returns the report, or throws the first violation with the step that found it.
    func run() async throws -> Report {
        try await coldStart()
        var nextSample = options.sampleInterval
        while report.events < options.events {
            report.steps += 1
            do {
                try await step()
                try await check()
            } catch let violation as SoakViolation {
                throw SoakViolation("step \(report.steps), after \(report.events) events: \(violation)")
            }
            if report.events >= nextSample {
                let bytes = MemoryUsage.current().residentBytes
                report.samples.append((report.events, bytes))
                nextSample += options.sampleInterval
                // Progress on standard error, so that a long run shows where it is.
                let line = "… \(report.events) events, \(report.steps) steps, resident \(bytes / 1_048_576) MB\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
        if controller.isPaused { resume() }
        controller.coalescingInterval = .zero
        try await check()
        report.deliveries += observers.reduce(0) { $0 + $1 } + retiredDeliveries
        return report
    }

    private var retiredDeliveries = 0
    private var observers: [Int] {
        handlers.map(\.deliveries) + streams.map(\.deliveries) + [delegate?.deliveries ?? 0, view?.deliveries ?? 0]
    }

    private func count(_ name: String) { report.counts[name, default: 0] += 1 }

    // MARK: Steps

    private func step() async throws {
        switch below(1000) {
        case 0..<780: events()
        case 780..<810: try await refetch()
        case 810..<840: try await nextPage()
        case 840..<870: controller.isPaused ? resume() : pause()
        case 870..<885: toggleCoalescing()
        case 885..<915: changeView()
        case 915..<955: optimisticUpdate()
        case 955..<965: try await coldStart()
        default: changeObservers()
        }
    }

    /// A batch of 1 to 8 events (single events most of the time), most also made on the server.
    private func events() {
        let size = chance(60) ? 1 : 1 + below(8)
        var events: [EntityEvent<SoakItem>] = []
        for _ in 0..<size { events.append(randomEvent(changingServer: !chance(8))) }
        if events.count == 1, chance(50) {
            controller.apply(events[0])
        } else {
            controller.apply(events)
        }
        reference.apply(events)
        report.events += events.count
        count("event batches")
    }

    private func randomEvent(changingServer: Bool) -> EntityEvent<SoakItem> {
        let known = reference.ids
        let grow = reference.count < 250
        switch below(100) {
        case 0..<(grow ? 35 : 20):
            let item = Self.item(id: nextID, using: &random)
            nextID += 1
            if changingServer { server.upsert(item, at: below(server.count + 1)) }
            return .inserted(item)
        case 35..<40 where grow, 20..<25 where !grow:
            // Unknown ids: a delete that changes nothing, an update that inserts.
            if chance(50) { return .deleted(-1 - below(1000)) }
            let item = Self.item(id: nextID, using: &random)
            nextID += 1
            if changingServer { server.upsert(item, at: server.count) }
            return .updated(item)
        case 40..<65 where grow, 25..<60 where !grow:
            guard let id = known.randomElement(using: &random) else { return .deleted(0) }
            if changingServer { server.delete(id) }
            return .deleted(id)
        default:
            guard let id = known.randomElement(using: &random), var item = reference.entry(id)?.item else {
                return .deleted(0)
            }
            switch below(3) {
            case 0: item.score = below(12)
            case 1: item.section = soakSections[below(soakSections.count)]
            default: item.title = "t\(below(4))"
            }
            if changingServer { server.upsert(item, at: 0) }
            return .updated(item)
        }
    }

    /// The pages a fetch of `plan` pages gets from the server now: up to the first page that is not full.
    private func serverPages(_ plan: Int) -> [[SoakItem]] {
        var pages: [[SoakItem]] = []
        for number in 0..<Swift.max(1, plan) {
            let page = server.page(number)
            pages.append(page)
            if page.count < server.pageSize { break }
        }
        return pages
    }

    private func refetch() async throws {
        let pages = serverPages(pagesShown)
        try await controller.performFetch()
        reference.fetch(pages: pages)
        pagesShown = pages.count
        generation += 1
        saved = (reference, pagesShown)
        count("refetches")
    }

    private func nextPage() async throws {
        guard controller.hasNextPage else { return }
        let page = server.page(pagesShown)
        let changes = try await controller.loadNextPage()
        reference.apply(page.map { .inserted($0) })
        pagesShown += 1
        saved = (reference, pagesShown)
        report.events += page.count
        if changes.isEmpty && !page.isEmpty { count("pages changing nothing") }
        count("pages")
    }

    private func pause() {
        controller.pause()
        frozen = reference
        count("pauses")
    }

    private func resume() {
        controller.resume()
        frozen = nil
    }

    private func toggleCoalescing() {
        controller.coalescingInterval = controller.coalescingInterval == .zero ? .milliseconds(1 + below(3)) : .zero
        count("coalescing switches")
    }

    private func changeView() {
        guard let view = view?.view else { return }
        let name = soakSections[below(soakSections.count)]
        switch below(3) {
        case 0: view.collapse(name)
        case 1: view.expand(name)
        default:
            let maximum = below(6)
            view.setLimit(
                chance(20) ? nil : SectionLimit(maximum: maximum, whenExceeding: below(maximum + 1)), for: name)
        }
        count("view changes")
    }

    /// Applies an optimistic update, or settles one: committed, or rolled back (restoring each touched
    /// entity's version from before it where the current one is still the one it made).
    private func optimisticUpdate() {
        if !optimistic.isEmpty, chance(60) {
            let (update, records, since) = optimistic.remove(at: below(optimistic.count))
            if chance(50) {
                update.commit()
                count("optimistic commits")
            } else {
                update.rollBack()
                if since == generation {
                    for (id, before, after) in records where reference.entry(id) == after && before != after {
                        reference.restore(id, to: before)
                    }
                }
                count("optimistic rollbacks")
            }
            return
        }
        let events = (0..<(1 + below(3))).map { _ in randomEvent(changingServer: false) }
        var touched: [Int] = []
        for event in events {
            if case .inserted(let item) = event, !touched.contains(item.id) { touched.append(item.id) }
            if case .updated(let item) = event, !touched.contains(item.id) { touched.append(item.id) }
            if case .deleted(let id) = event, !touched.contains(id) { touched.append(id) }
        }
        let before = touched.map { reference.entry($0) }
        let update = controller.applyOptimistically(events)
        reference.apply(events)
        let records = zip(touched, before).map { ($0, $1, reference.entry($0)) }
        optimistic.append((update, records, generation))
        report.events += events.count
        count("optimistic updates")
    }

    /// A new controller with the same definition, started from what the cache holds (or fetched, if
    /// nothing was saved yet), with new observers; the old controller and its observers go.
    private func coldStart() async throws {
        retireObservers()
        controller = FetchedResultsController(
            definition: definition, sortDescriptors: [SortDescriptor(\SoakItem.score)],
            sectionNameKeyPath: \SoakItem.section)
        frozen = nil
        optimistic = []
        generation += 1
        if let saved {
            try await controller.performFetch()
            (reference, pagesShown) = saved
            reference.fetch(pages: [flattened(reference)])
            guard controller.resultsOrigin != .request else { throw SoakViolation("a cold start fetched") }
        } else {
            let pages = serverPages(1)
            try await controller.performFetch()
            reference.fetch(pages: pages)
            pagesShown = pages.count
            saved = (reference, pagesShown)
        }
        handlers = [SoakHandler(controller)]
        streams = [SoakStream(controller)]
        let delegate = SoakDelegate(start: controller.snapshot)
        controller.delegate = delegate
        self.delegate = delegate
        view = SoakView(controller, seed: below(1000))
        count("cold starts")
    }

    private func flattened(_ reference: SoakReference) -> [SoakItem] {
        reference.sections.flatMap(\.items)
    }

    private func retireObservers() {
        retiredDeliveries += observers.reduce(0, +)
        handlers.forEach { $0.cancel() }
        streams.forEach { $0.cancel() }
        handlers = []
        streams = []
        delegate = nil
        view = nil
    }

    /// Adds or removes an observer of each kind (there is one delegate; it is replaced).
    private func changeObservers() {
        switch below(5) {
        case 0 where handlers.count < 4: handlers.append(SoakHandler(controller))
        case 1 where !handlers.isEmpty:
            let handler = handlers.remove(at: below(handlers.count))
            retiredDeliveries += handler.deliveries
            handler.cancel()
        case 2 where streams.count < 3: streams.append(SoakStream(controller))
        case 3 where !streams.isEmpty:
            let stream = streams.remove(at: below(streams.count))
            retiredDeliveries += stream.deliveries
            stream.cancel()
        default:
            retiredDeliveries += delegate?.deliveries ?? 0
            if let delegate, delegate.violation != nil { retired.append(delegate) }
            let start = controller.snapshot
            let delegate = SoakDelegate(start: start)
            controller.delegate = delegate
            self.delegate = delegate
        }
        count("observer changes")
    }

    // MARK: Checks

    /// The results equal the reference; at rest (not paused, not coalescing), every observer has them.
    private func check() async throws {
        let expected = SoakModel(sections: (frozen ?? reference).sections)
        let shown = SoakModel(controller.snapshot)
        guard shown == expected else {
            throw SoakViolation("the results (\(shown.count)) differ from the reference (\(expected.count))")
        }
        for observer in handlers.map({ $0 as SoakObserver }) + [delegate].compactMap({ $0 }) + retired {
            if let violation = observer.violation { throw violation }
        }
        for stream in streams { if let violation = stream.violation { throw violation } }
        if let violation = view?.violation { throw violation }
        guard !controller.isPaused, controller.coalescingInterval == .zero else { return }
        let ids = SoakIDs(shown)
        for handler in handlers { try await settle("observeChanges handler") { handler.ids == ids } }
        if let delegate { try await settle("delegate") { delegate.ids == ids } }
        for stream in streams { try await settle("changes sequence") { stream.ids == ids } }
        if let view { try await settle("collapsible view") { view.ids == SoakView.display(of: view.view) } }
    }

    /// Waits (two seconds at most) for a delivery in flight on another thread to arrive.
    private func settle(_ name: String, _ condition: () -> Bool) async throws {
        if condition() { return }
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
            if condition() { return }
        }
        throw SoakViolation("the \(name) does not have the controller's results")
    }
}
