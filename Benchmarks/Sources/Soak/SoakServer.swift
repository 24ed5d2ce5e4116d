import Foundation
import LiveResults
import Synchronization

/// The server the controller fetches from: a list of entities in page order, which the soak changes
/// between fetches, with events that tell the controller (most of the time) and without (drift).
final class SoakServer: Sendable {
    let pageSize: Int
    private let items = Mutex<[SoakItem]>([])

    init(pageSize: Int, items: [SoakItem]) {
        self.pageSize = pageSize
        self.items.withLock { $0 = items }
    }

    var all: [SoakItem] { items.withLock { $0 } }

    var count: Int { items.withLock { $0.count } }

    /// The page with this number: `pageSize` entities from `page × pageSize` on (fewer at the end).
    func page(_ page: Int) -> [SoakItem] {
        items.withLock { items in
            let start = Swift.min(items.count, page * pageSize)
            return Array(items[start..<Swift.min(items.count, start + pageSize)])
        }
    }

    /// Inserts at a position, or puts the new version in place.
    func upsert(_ item: SoakItem, at position: Int) {
        items.withLock { items in
            if let index = items.firstIndex(where: { $0.id == item.id }) {
                items[index] = item
            } else {
                items.insert(item, at: Swift.min(position, items.count))
            }
        }
    }

    func delete(_ id: Int) {
        items.withLock { $0.removeAll { $0.id == id } }
    }
}
