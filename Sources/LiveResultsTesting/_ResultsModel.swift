import Foundation
import LiveResults

/// A snapshot reduced to what the contract talks about: section names and entities, with lookups by id.
struct _ResultsModel<Entity: FetchableEntity> {
    let sections: [(name: String, items: [Entity])]
    let names: [String]
    private let places: [Entity.ID: IndexPath]

    init(_ snapshot: FetchedResultsSnapshot<Entity>) {
        self.init(sections: snapshot.sections.map { ($0.name, Array($0.objects)) })
    }

    init(sections: [(name: String, items: [Entity])]) {
        self.sections = sections
        names = sections.map(\.name)
        var places: [Entity.ID: IndexPath] = [:]
        for (section, entry) in sections.enumerated() {
            for (item, entity) in entry.items.enumerated() {
                places[entity.id] = IndexPath(item: item, section: section)
            }
        }
        self.places = places
    }

    /// Every entity with its index path, in order.
    var entities: [(IndexPath, Entity)] {
        sections.enumerated().flatMap { section, entry in
            entry.items.enumerated().map { (IndexPath(item: $0, section: section), $1) }
        }
    }

    func id(at path: IndexPath) -> Entity.ID? {
        guard sections.indices.contains(path.section), sections[path.section].items.indices.contains(path.item) else {
            return nil
        }
        return sections[path.section].items[path.item].id
    }

    func place(ofID id: Entity.ID) -> IndexPath? { places[id] }

    func entity(withID id: Entity.ID) -> Entity? {
        places[id].map { sections[$0.section].items[$0.item] }
    }
}
