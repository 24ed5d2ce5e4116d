import Foundation
import LiveResultsExampleKit

extension TodoItem {
    static let milk = TodoItem(id: 1, title: "Buy milk", project: "Home", priority: 2, authorID: "ana")
    static let bike = TodoItem(id: 2, title: "Fix bike", project: "Home", priority: 1)
    static let report = TodoItem(id: 3, title: "Write report", project: "Work", priority: 1, authorID: "ben")
}

extension KeyValueStore {
    /// Stores `text` as UTF-8 data under `key`.
    func set(_ text: String, forKey key: String) throws {
        try set(Data(text.utf8), forKey: key)
    }
}

extension Author {
    static let ana = ScriptedDemo.authors[0]
}

/// A repository over `store`, with the entities saved in it, in order.
func repository<Entity: StorableEntity>(_ store: any KeyValueStore, saving items: [Entity]) throws
    -> EntityRepository<Entity>
{
    let repository = EntityRepository<Entity>(store: store)
    for item in items {
        try repository.save(item)
    }
    return repository
}
