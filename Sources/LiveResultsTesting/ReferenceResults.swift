import Foundation
import LiveResults

/// The one ordering rule of LiveResults, done the slow, obvious way: a model to compare a controller with in a
/// randomized test.
///
/// It keeps every included entity with its insertion number and sorts them all whenever ``sections`` is read:
/// by section name in the section order, then by the sort descriptors, then by insertion order (the position in
/// the fetch result for fetched entities, arrival order for those inserted later; an update keeps it). Events
/// follow the controller's rules: an insert of a known id is an update, an update of an unknown id that is
/// included is an insert, an update that is no longer included removes the entity, a delete of an unknown id
/// does nothing, and events before the first ``fetch(_:)`` or after ``reset()`` are ignored.
///
/// ```swift
/// var random = SeededRandom(seed: 7)
/// var reference = ReferenceResults<Post>(
///     sortDescriptors: [SortDescriptor(\.score, order: .reverse)], sectionNameKeyPath: \.topic)
/// try await controller.performFetch()
/// reference.fetch(try await store.fetchPosts())
/// for _ in 0..<1_000 {
///     let events = randomEvents(using: &random)
///     controller.apply(events)
///     reference.apply(events)
///     #expect(reference.difference(from: controller.snapshot) == nil)
/// }
/// ```
///
/// It is a value with no sharing and no index: clear rather than fast, for results of a few thousand entities.
public struct ReferenceResults<Entity: FetchableEntity> {
    /// A section of the reference: its name and its entities in order.
    public struct Section: Equatable, CustomStringConvertible {
        /// The section's name: the value of the section key path, or `""` without one.
        public var name: String
        /// The section's entities, in order.
        public var objects: [Entity]

        /// A section named `name` holding `objects`.
        ///
        /// - Complexity: O(1).
        public init(name: String, objects: [Entity]) {
            self.name = name
            self.objects = objects
        }

        /// The name and the ids, as `name: 1,2,3`.
        public var description: String {
            "\(name): " + objects.map { "\($0.id)" }.joined(separator: ",")
        }
    }

    private let sectionName: ((Entity) -> String)?
    private let sectionOrder: SectionOrder
    private var areInIncreasingOrder: (Entity, Entity) -> Bool
    private let isIncluded: (Entity) -> Bool
    private var entries: [Entity.ID: (entity: Entity, insertion: Int)] = [:]
    private var nextInsertion = 0

    /// Whether the reference takes events: after ``fetch(_:)``, until ``reset()``.
    public private(set) var isFetched = false

    /// A reference ordered as a controller with the same arguments orders its results.
    ///
    /// - Parameters:
    ///   - sortDescriptors: The sort descriptors, in order.
    ///   - sectionNameKeyPath: The section of an entity; `nil` for one section named `""`.
    ///   - sectionOrder: The order of the sections.
    ///   - isIncluded: Which entities the results show.
    /// - Complexity: O(1).
    public init(
        sortDescriptors: [SortDescriptor<Entity>],
        sectionNameKeyPath: KeyPath<Entity, String>? = nil,
        sectionOrder: SectionOrder = .ascending,
        isIncluded: @escaping (Entity) -> Bool = { _ in true }
    ) {
        self.init(
            areInIncreasingOrder: Self.order(sortDescriptors),
            sectionName: sectionNameKeyPath.map { keyPath in { $0[keyPath: keyPath] } },
            sectionOrder: sectionOrder, isIncluded: isIncluded)
    }

    /// A reference ordered by a comparison of entities, for controllers sorted by a comparator.
    ///
    /// - Parameters:
    ///   - areInIncreasingOrder: A strict weak ordering of entities; entities it finds equivalent keep their
    ///     insertion order.
    ///   - sectionName: The section of an entity; `nil` for one section named `""`.
    ///   - sectionOrder: The order of the sections.
    ///   - isIncluded: Which entities the results show.
    /// - Complexity: O(1).
    public init(
        areInIncreasingOrder: @escaping (Entity, Entity) -> Bool,
        sectionName: ((Entity) -> String)? = nil,
        sectionOrder: SectionOrder = .ascending,
        isIncluded: @escaping (Entity) -> Bool = { _ in true }
    ) {
        self.areInIncreasingOrder = areInIncreasingOrder
        self.sectionName = sectionName
        self.sectionOrder = sectionOrder
        self.isIncluded = isIncluded
    }

    /// Replaces everything with the included entities of a fetch result, as `performFetch()` does.
    ///
    /// Insertion order restarts from the positions in `entities`. Where an id occurs more than once, its
    /// first occurrence decides, also when the inclusion rule then leaves it out.
    ///
    /// - Parameter entities: The fetch result, in the order the request returned it.
    /// - Complexity: O(*m*) for *m* entities fetched.
    public mutating func fetch(_ entities: [Entity]) {
        entries = [:]
        var seen = Set<Entity.ID>()
        for (position, entity) in entities.enumerated() where seen.insert(entity.id).inserted && isIncluded(entity) {
            entries[entity.id] = (entity, position)
        }
        nextInsertion = entities.count
        isFetched = true
    }

    /// Applies one event by the controller's rules.
    ///
    /// `invalidated` changes nothing here: the controller refetches, so call ``fetch(_:)`` with what its request
    /// returns.
    ///
    /// - Parameter event: The event.
    /// - Complexity: O(1) on average.
    public mutating func apply(_ event: EntityEvent<Entity>) {
        guard isFetched else { return }
        switch event {
        case .inserted(let entity), .updated(let entity):
            if let existing = entries[entity.id] {
                entries[entity.id] = isIncluded(entity) ? (entity, existing.insertion) : nil
            } else if isIncluded(entity) {
                entries[entity.id] = (entity, nextInsertion)
                nextInsertion += 1
            }
        case .deleted(let id):
            entries[id] = nil
        case .invalidated:
            break
        }
    }

    /// Applies a batch of events in order, as `apply(_:)` on a controller does.
    ///
    /// - Parameter events: The events.
    /// - Complexity: O(*k*) on average for *k* events.
    public mutating func apply(_ events: [EntityEvent<Entity>]) {
        for event in events { apply(event) }
    }

    /// Empties the reference and ignores events until the next ``fetch(_:)``, as `reset()` does.
    ///
    /// - Complexity: O(*n*) for *n* entities.
    public mutating func reset() {
        entries = [:]
        isFetched = false
    }

    /// Orders by other sort descriptors, as `resort(using:)` does; entities keep their insertion order.
    ///
    /// - Parameter sortDescriptors: The new sort descriptors.
    /// - Complexity: O(1); the next read of ``sections`` sorts.
    public mutating func resort(using sortDescriptors: [SortDescriptor<Entity>]) {
        areInIncreasingOrder = Self.order(sortDescriptors)
    }

    /// The sections in order, each with its entities in order; no empty sections.
    ///
    /// - Complexity: O(*n* log *n*) for *n* entities: every read sorts them all.
    public var sections: [Section] {
        let sorted = entries.values.sorted { lhs, rhs in
            let (left, right) = (name(lhs.entity), name(rhs.entity))
            if left != right { return sectionOrder.areInIncreasingOrder(left, right) }
            if areInIncreasingOrder(lhs.entity, rhs.entity) { return true }
            if areInIncreasingOrder(rhs.entity, lhs.entity) { return false }
            return lhs.insertion < rhs.insertion
        }
        var sections: [Section] = []
        for entry in sorted {
            let name = name(entry.entity)
            if sections.last?.name == name {
                sections[sections.count - 1].objects.append(entry.entity)
            } else {
                sections.append(Section(name: name, objects: [entry.entity]))
            }
        }
        return sections
    }

    /// Every entity in order, across the sections.
    ///
    /// - Complexity: O(*n* log *n*) for *n* entities.
    public var fetchedObjects: [Entity] { sections.flatMap(\.objects) }

    /// The number of entities.
    ///
    /// - Complexity: O(1).
    public var count: Int { entries.count }

    /// The sections of `snapshot` in the reference's form, to compare with ``sections``.
    ///
    /// - Parameter snapshot: A snapshot of live results.
    /// - Returns: Its sections with their names and entities.
    /// - Complexity: O(*n*) for *n* entities.
    public static func sections(of snapshot: FetchedResultsSnapshot<Entity>) -> [Section] {
        snapshot.sections.map { Section(name: $0.name, objects: Array($0.objects)) }
    }

    /// Where `snapshot` first differs from the reference, in a sentence; `nil` when they are the same.
    ///
    /// ```swift
    /// #expect(reference.difference(from: controller.snapshot) == nil, "seed \(seed) step \(step)")
    /// ```
    ///
    /// - Parameter snapshot: A snapshot of live results, such as a controller's.
    /// - Returns: The first section or entity that differs, or `nil`.
    /// - Complexity: O(*n* log *n*) for *n* entities.
    public func difference(from snapshot: FetchedResultsSnapshot<Entity>) -> String? {
        let (expected, actual) = (sections, Self.sections(of: snapshot))
        guard expected.map(\.name) == actual.map(\.name) else {
            return "the sections are \(actual.map(\.name)), the reference has \(expected.map(\.name))"
        }
        for (index, (mine, theirs)) in zip(expected, actual).enumerated() where mine != theirs {
            if mine.objects.map(\.id) != theirs.objects.map(\.id) {
                return "section \(index) is [\(theirs)], the reference has [\(mine)]"
            }
            let item =
                zip(mine.objects, theirs.objects).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? 0
            return
                "the entity at [\(index), \(item)] is \(theirs.objects[item]), the reference has \(mine.objects[item])"
        }
        return nil
    }

    private func name(_ entity: Entity) -> String { sectionName?(entity) ?? "" }

    private static func order(_ sortDescriptors: [SortDescriptor<Entity>]) -> (Entity, Entity) -> Bool {
        { lhs, rhs in
            for descriptor in sortDescriptors {
                switch descriptor.compare(lhs, rhs) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame:
                    // Foundation finds NaN equal to every number; the library sorts it after them.
                    let (lhsIsNaN, rhsIsNaN) = (isNaN(lhs, descriptor), isNaN(rhs, descriptor))
                    guard lhsIsNaN != rhsIsNaN else { continue }
                    return rhsIsNaN == (descriptor.order == .forward)
                }
            }
            return false
        }
    }

    /// Whether `descriptor`'s key of `entity` is a floating-point NaN, or a date made of one.
    private static func isNaN(_ entity: Entity, _ descriptor: SortDescriptor<Entity>) -> Bool {
        guard let keyPath = descriptor.keyPath else { return false }
        switch entity[keyPath: keyPath] {
        case let value as Double: return value.isNaN
        case let value as Float: return value.isNaN
        case let value as Date: return value.timeIntervalSinceReferenceDate.isNaN
        default: return false
        }
    }
}
