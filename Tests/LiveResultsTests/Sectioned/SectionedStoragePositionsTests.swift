import Foundation
import Testing

@testable import LiveResults

/// Display-order positions (`_SectionedStorage+Positions`) agree with `fetchedObjects`, for every
/// layout of up to 12 entities in up to 4 sections.
@Suite("Storage positions")
struct SectionedStoragePositionsTests {
    static func storage(sectionSizes: [Int]) -> _SectionedStorage<Item> {
        let ordering = _EntityOrdering<Item>(
            sectionNameKeyPath: \Item.section, sectionOrder: .ascending,
            rule: _EntityOrdering.rule(of: [SortDescriptor(\Item.score)]))
        var stored: [_StoredEntity<Item>] = []
        for (section, size) in sectionSizes.enumerated() {
            for item in 0..<size {
                let entity = Item(stored.count, section: "s\(section)", score: item)
                stored.append(_StoredEntity(entity: entity, sequence: UInt64(stored.count)))
            }
        }
        return _SectionedStorage(ordering: ordering, contents: stored.reversed())
    }

    static let layouts: [[Int]] = [[], [1], [3], [1, 1], [2, 5], [4, 1, 3], [1, 2, 3, 4], [5, 1, 1, 5]]

    @Test(arguments: layouts)
    func globalIndexAndIndexPathAreInverse(sectionSizes: [Int]) {
        let storage = Self.storage(sectionSizes: sectionSizes)
        let objects = FetchedObjects(_storage: storage)
        #expect(storage.count == sectionSizes.reduce(0, +))
        for position in 0..<storage.count {
            let indexPath = storage.indexPath(atGlobalIndex: position)
            #expect(storage[indexPath].entity == objects[position])
            #expect(storage.globalIndex(of: indexPath) == position)
        }
    }

    @Test(arguments: layouts)
    func everyRangeListsTheEntitiesInDisplayOrder(sectionSizes: [Int]) {
        let storage = Self.storage(sectionSizes: sectionSizes)
        let objects = Array(FetchedObjects(_storage: storage))
        for lower in 0...storage.count {
            for upper in lower...storage.count {
                #expect(storage.stored(inGlobalRange: lower..<upper).map(\.entity) == Array(objects[lower..<upper]))
            }
        }
    }
}
