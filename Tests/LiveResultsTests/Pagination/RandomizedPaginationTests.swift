import Foundation
@_spi(Testing) import LiveResults
import Testing

/// Random live events interleaved with page loads in both directions, refetches, resets and changes on
/// the server, each step checked against the reference model (which loads pages one by one) and the
/// change-set contract.
@Suite("Randomized pagination against the reference model")
struct RandomizedPaginationTests {
    /// The reference side: the model of the results, and the cursors the controller should hold.
    struct Reference {
        var model: ReferenceModel
        var next: Int?
        var previous: Int?
        var pages = (forward: 0, backward: 0)
        let pageSize: Int
        let start: Int

        /// Adds a page as live inserts: its first occurrence of each id, as ``EntityEvent/inserted(_:)``.
        mutating func add(_ page: [Item]) {
            var seen = Set<Int>()
            for item in page where seen.insert(item.id).inserted { model.apply(.inserted(item)) }
        }

        /// Loads the pages a fetch loads from `items`: the first, then forward and backward as many as shown.
        mutating func fetch(_ items: [Item]) {
            let plan: (forward: Int, backward: Int) = pages.forward == 0 ? (1, 0) : pages
            let first = PageServer.page(of: items, at: start, size: pageSize)
            model.fetch(first.entities)
            (next, previous, pages) = (first.next, first.previous, (1, 0))
            while pages.forward < plan.forward, let cursor = next {
                let page = PageServer.page(of: items, at: cursor, size: pageSize)
                add(page.entities)
                (next, pages.forward) = (page.next, pages.forward + 1)
            }
            while pages.backward < plan.backward, let cursor = previous {
                let page = PageServer.page(of: items, at: cursor, size: pageSize)
                add(page.entities)
                (previous, pages.backward) = (page.previous, pages.backward + 1)
            }
        }

        mutating func reset() {
            model.fetch([])
            (next, previous, pages) = (nil, nil, (0, 0))
        }
    }

    @Test(
        "random pages, events and refetches agree with the reference model and the contract",
        arguments: [
            (seed: UInt64(11), pageSize: 3, filtered: false),
            (seed: 12, pageSize: 1, filtered: true),
            (seed: 13, pageSize: 5, filtered: false),
            (seed: 14, pageSize: 4, filtered: true),
        ])
    func randomPagination(seed: UInt64, pageSize: Int, filtered: Bool) async throws {
        let isIncluded: @Sendable (Item) -> Bool = { item in !filtered || item.score != 7 }
        var workload = RandomizedModelTests.Workload(seed: seed, idSpace: 60)
        let start = pageSize * 3
        let server = PageServer(workload.fetchResult(count: 40), pageSize: pageSize, start: start)
        let controller = server.controller(sectioned: true, isIncluded: isIncluded)
        var reference = Reference(
            model: ReferenceModel(isIncluded: isIncluded), pageSize: pageSize, start: start)
        var old = SnapshotModel(controller.snapshot)
        var fetched = false

        for step in 0..<1200 {
            let changes: ChangeSet<Item>
            let roll = Int.random(in: 0..<100, using: &workload.random)
            switch roll {
            case _ where !fetched || roll < 4:
                // Refetch (or first fetch), sometimes after the server changed.
                if roll % 2 == 0 { server.items = mutated(server.items, with: &workload) }
                changes = try await controller.performFetch()
                reference.fetch(server.items)
                fetched = true
            case 4..<6:
                changes = controller.reset()
                reference.reset()
                fetched = roll == 4  // after a reset, sometimes events and pages before the next fetch
            case 6..<14:
                server.items = mutated(server.items, with: &workload)
                changes = ChangeSet()
            case 14..<40:
                changes = try await controller.loadNextPage()
                if let cursor = reference.next {
                    let page = PageServer.page(of: server.items, at: cursor, size: pageSize)
                    reference.add(page.entities)
                    (reference.next, reference.pages.forward) = (page.next, reference.pages.forward + 1)
                }
            case 40..<55:
                changes = try await controller.loadPreviousPage()
                if let cursor = reference.previous {
                    let page = PageServer.page(of: server.items, at: cursor, size: pageSize)
                    reference.add(page.entities)
                    (reference.previous, reference.pages.backward) = (page.previous, reference.pages.backward + 1)
                }
            default:
                let batch = workload.batch(knownItems: Array(controller.fetchedObjects))
                changes = controller.apply(batch)
                if reference.pages.forward > 0 { batch.forEach { reference.model.apply($0) } }
            }
            controller.snapshot._checkInvariants()
            let new = SnapshotModel(controller.snapshot)
            #expect(new == reference.model.snapshot, "seed \(seed) step \(step): \(new) ≠ \(reference.model.snapshot)")
            expectContract(changes, from: old, to: new)
            let pagination = controller.pagination
            #expect(pagination.pagesLoaded == reference.pages.forward + reference.pages.backward, "step \(step)")
            #expect(controller.hasNextPage == (reference.next != nil), "step \(step)")
            #expect(controller.hasPreviousPage == (reference.previous != nil), "step \(step)")
            if new != reference.model.snapshot { return }
            old = new
        }
    }

    /// The server's items with a few inserted, removed or changed.
    func mutated(_ items: [Item], with workload: inout RandomizedModelTests.Workload) -> [Item] {
        var items = items
        for _ in 0..<Int.random(in: 1...4, using: &workload.random) {
            switch Int.random(in: 0..<3, using: &workload.random) {
            case 0:
                let id = Int.random(in: 0..<workload.idSpace, using: &workload.random)
                items.insert(workload.item(id), at: Int.random(in: 0...items.count, using: &workload.random))
            case 1 where !items.isEmpty:
                items.remove(at: Int.random(in: items.indices, using: &workload.random))
            default:
                guard let index = items.indices.randomElement(using: &workload.random) else { break }
                items[index] = workload.variation(of: items[index])
            }
        }
        return items
    }
}
