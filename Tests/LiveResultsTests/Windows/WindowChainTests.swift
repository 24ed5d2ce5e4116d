import Foundation
import LiveResultsTesting
import Testing

@testable import LiveResults

/// Randomized chains of every kind of change, with many windows of every kind on one controller: after
/// each step each window equals the slice of the controller's results its range names, and every change
/// set it delivered turns its previous contents into the next under the whole contract, with minimal moves.
@Suite struct WindowChainTests {
    /// What one window delivered, and its contents after each change set.
    final class Follower: Sendable {
        let window: LiveWindow<Item>
        let delivered = Locked<[(changes: ChangeSet<Item>, model: SnapshotModel<Item>)]>([])
        let subscription: EventSubscription
        /// The window's contents as of the last check.
        let checked: Locked<SnapshotModel<Item>>

        init(_ window: LiveWindow<Item>) {
            self.window = window
            let delivered = delivered
            let (start, subscription) = window.observeChanges { changes, snapshot in
                delivered.withLock { $0.append((changes, SnapshotModel(snapshot))) }
            }
            self.subscription = subscription
            checked = Locked(SnapshotModel(start))
        }

        /// Checks every change set delivered since the last check, and the window against `expected`.
        func check(
            against expected: SnapshotModel<Item>, step: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            var previous = checked.withLock { $0 }
            let deliveries = delivered.withLock { list -> [(changes: ChangeSet<Item>, model: SnapshotModel<Item>)] in
                defer { list = [] }
                return list
            }
            for (changes, model) in deliveries {
                #expect(
                    !changes.isEmpty, "step \(step): an empty change set was delivered", sourceLocation: sourceLocation)
                expectContract(changes, from: previous, to: model, sourceLocation: sourceLocation)
                previous = model
            }
            #expect(
                previous == expected, "step \(step), \(window.range): delivered \(previous), expected \(expected)",
                sourceLocation: sourceLocation)
            #expect(
                SnapshotModel(window.snapshot) == expected, "step \(step), \(window.range): reads differ",
                sourceLocation: sourceLocation)
            #expect(
                Array(window.fetchedObjects).map(\.id) == expected.ids.flatMap { $0 }, sourceLocation: sourceLocation)
            checked.withLock { $0 = expected }
        }
    }

    /// The slice of `results` that `range` names, grouped in its sections.
    static func slice(_ results: SnapshotModel<Item>, _ range: WindowRange) -> SnapshotModel<Item> {
        let flat = results.sections.flatMap { section in section.items.map { (section.name, $0) } }
        let positions = range.positions(count: flat.count)
        var sections: [(name: String, items: [Item])] = []
        for (name, item) in flat[positions] {
            if sections.last?.name == name {
                sections[sections.count - 1].items.append(item)
            } else {
                sections.append((name, [item]))
            }
        }
        return SnapshotModel(sections: sections)
    }

    static func randomRange(_ random: inout SeededGenerator) -> WindowRange {
        switch Int.random(in: 0..<7, using: &random) {
        case 0: .first(Int.random(in: 0...12, using: &random))
        case 1: .last(Int.random(in: 0...12, using: &random))
        // Windows that hold all the results (about 30) or nearly: their change set is the controller's.
        case 2: .first(Int.random(in: 25...60, using: &random))
        // What a client may send a server: windows to the end, and windows far past it.
        case 3: .range(offset: Int.random(in: 0...40, using: &random), limit: .max)
        case 4:
            .range(offset: .max - Int.random(in: 0...3, using: &random), limit: Int.random(in: 0...12, using: &random))
        default: .range(offset: Int.random(in: 0...40, using: &random), limit: Int.random(in: 0...12, using: &random))
        }
    }

    static func randomItem(_ id: Int, _ random: inout SeededGenerator) -> Item {
        Item(
            id, section: ["a", "b", "c", "d", "e"].randomElement(using: &random)!,
            score: Int.random(in: 0..<8, using: &random), title: String(Int.random(in: 0..<3, using: &random)))
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomChains(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let store = FakeStore((0..<30).map { Self.randomItem($0, &random) })
        let controller = FetchedResultsController.make(store)
        // Some windows are made before the first fetch.
        var followers = (0..<6).map { _ in Follower(controller.window(Self.randomRange(&random))) }
        _ = try await controller.performFetch()
        followers += (0..<18).map { _ in Follower(controller.window(Self.randomRange(&random))) }
        // Every other window holds its versions, as one with an update stream does.
        var held = HeldVersions()
        for index in followers.indices where index.isMultiple(of: 2) { held.start(followers[index].window) }
        var nextID = 100
        var coalescing = false
        for step in 0..<1_000 {
            let live = controller.snapshot.fetchedObjects.map(\.id)
            let choice = Int.random(in: 0..<100, using: &random)
            switch choice {
            case 0..<45:
                // One event: insert, update (section, score or content) or delete.
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    controller.apply(.inserted(Self.randomItem(nextID, &random)))
                    nextID += 1
                case 1:
                    if let id = live.randomElement(using: &random) {
                        controller.apply(.updated(Self.randomItem(id, &random)))
                    }
                default:
                    if let id = live.randomElement(using: &random) { controller.apply(.deleted(id)) }
                }
            case 45..<60:
                // A batch of several events.
                var events: [EntityEvent<Item>] = []
                for _ in 0..<Int.random(in: 2...8, using: &random) {
                    if Bool.random(using: &random), let id = live.randomElement(using: &random) {
                        events.append(
                            Bool.random(using: &random) ? .deleted(id) : .updated(Self.randomItem(id, &random)))
                    } else {
                        events.append(.inserted(Self.randomItem(nextID, &random)))
                        nextID += 1
                    }
                }
                controller.apply(events)
            case 60..<66:
                // A refetch of a changed store.
                store.items = (0..<Int.random(in: 0...40, using: &random)).map {
                    Self.randomItem(Int.random(in: 0..<($0 + 60), using: &random), &random)
                }.uniqued()
                _ = try await controller.performFetch()
            case 66..<70:
                let descriptors: [[SortDescriptor<Item>]] = [
                    [SortDescriptor(\Item.score)], [SortDescriptor(\Item.score, order: .reverse)],
                    [SortDescriptor(\Item.title), SortDescriptor(\Item.score)],
                ]
                controller.resort(using: descriptors.randomElement(using: &random)!)
            case 70..<74:
                if controller.isPaused { controller.resume() } else { controller.pause() }
            case 74..<77:
                // Coalescing with a long interval, flushed by turning it off.
                coalescing.toggle()
                controller.coalescingInterval = coalescing ? .seconds(3600) : .zero
            case 77..<86:
                let index = Int.random(in: 0..<followers.count, using: &random)
                followers[index].window.move(to: Self.randomRange(&random))
            case 86..<90:
                let index = Int.random(in: 0..<followers.count, using: &random)
                followers[index].window.close()
                followers[index] = Follower(controller.window(Self.randomRange(&random)))
                if index.isMultiple(of: 2) { held.start(followers[index].window) }
            case 90..<92:
                controller.reset()
                _ = try await controller.performFetch()
            default:
                // Several entities move to one section at once.
                let ids = live.shuffled(using: &random).prefix(4)
                controller.apply(
                    ids.map { .updated(Item($0, section: "c", score: Int.random(in: 0..<8, using: &random))) })
            }
            let observed = SnapshotModel(controller._observedResults().snapshot)
            for follower in followers {
                follower.check(against: Self.slice(observed, follower.window.range), step: "\(step) (\(choice))")
            }
            #expect(followers.allSatisfy { $0.window.totalCount == observed.ids.joined().count })
            for index in followers.indices where index.isMultiple(of: 2) {
                held.check(followers[index].window, step: "\(step) (\(choice))", &random)
            }
        }
    }

    /// The contents of windows that hold their versions, by window and version, to check that a held version's
    /// entities, undone from the window's current ones, are what the window held then.
    struct HeldVersions {
        var contents: [ObjectIdentifier: [UInt64: SnapshotModel<Item>]] = [:]

        mutating func start(_ window: LiveWindow<Item>) {
            window.nameVersionsByContents(scope: "the chain")
            contents[ObjectIdentifier(window)] = [:]
        }

        /// Records the window's current version, then checks its oldest held version and one at random among
        /// those recorded.
        mutating func check(
            _ window: LiveWindow<Item>, step: String, _ random: inout SeededGenerator,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let key = ObjectIdentifier(window)
            let (snapshot, version) = window._versionedSnapshot()
            contents[key, default: [:]][version] = SnapshotModel(snapshot)
            let (state, now) = window.controller._withObservedStorage { storage in
                window._registry.state.withLock { state in
                    let window = state.windows[window._id]!
                    return (window, _WindowState.entities(of: storage, at: window.positions))
                }
            }
            guard let oldest = state.history.first?.sequence else {
                Issue.record("step \(step): the window holds no version", sourceLocation: sourceLocation)
                return
            }
            #expect(state.history.last?.sequence == version, "step \(step)", sourceLocation: sourceLocation)
            contents[key] = contents[key]!.filter { $0.key >= oldest }
            let recorded = contents[key]!.keys.sorted()
            for version in [oldest, recorded.randomElement(using: &random)!] {
                guard let expected = contents[key]![version] else { continue }
                let entities = state.entities(atVersion: version, from: now)
                #expect(
                    entities.map { SnapshotModel(FetchedResultsSnapshot(_storage: $0)) } == expected,
                    "step \(step), \(window.range): held version \(version) of \(state.sequence); \(state.history.map { "\($0.sequence):\($0.undo.replaced == nil ? "" : "R")\($0.undo.entries.count)" })",
                    sourceLocation: sourceLocation)
            }
        }
    }
}

extension Array where Element == Item {
    /// The items with the first of each id.
    fileprivate func uniqued() -> [Item] {
        var seen = Set<Int>()
        return filter { seen.insert($0.id).inserted }
    }
}
