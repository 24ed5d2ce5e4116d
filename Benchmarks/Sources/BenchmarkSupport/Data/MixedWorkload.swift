import LiveResults

/// An endless, seeded stream of live events in the realistic mix of the core targets: 40% update in place (title),
/// 20% sort-key change (score), 10% section change, 15% insert and 15% delete.
///
/// It tracks the entities it has made live, so updates and deletes always hit an existing entity,
/// inserts always bring a new id, and the entity count stays about the same.
public struct MixedWorkload {
    private var random: SplitMix64
    private var live: [Row]
    private var slots: [Int: Int]
    private var nextID: Int
    private var edits = 0

    /// - Parameters:
    ///   - rows: the entities the designs were loaded with.
    ///   - seed: the seed of the event stream.
    public init(rows: [Row], seed: UInt64) {
        random = SplitMix64(seed: seed)
        live = rows
        slots = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1.id, $0) })
        nextID = (rows.map(\.id).max() ?? -1) + 1
    }

    /// The next `count` events.
    public mutating func events(count: Int) -> [EntityEvent<Row>] {
        (0..<count).map { _ in nextEvent() }
    }

    /// The next `batchCount` batches of `size` events each.
    public mutating func batches(count batchCount: Int, size: Int) -> [[EntityEvent<Row>]] {
        (0..<batchCount).map { _ in events(count: size) }
    }

    /// The next event.
    public mutating func nextEvent() -> EntityEvent<Row> {
        let roll = random.below(100)
        if live.isEmpty || (70..<85).contains(roll) { return insert() }
        if roll >= 85 { return delete() }
        var row = live[random.below(live.count)]
        switch roll {
        case ..<40: row.title = nextTitle()
        case ..<60: row.score = random.below(Dataset.scoreRange)
        default: row.section = otherSection(than: row.section)
        }
        live[slots[row.id]!] = row
        return .updated(row)
    }

    private mutating func insert() -> EntityEvent<Row> {
        let row = Dataset.randomRow(id: nextID, using: &random)
        nextID += 1
        slots[row.id] = live.count
        live.append(row)
        return .inserted(row)
    }

    private mutating func delete() -> EntityEvent<Row> {
        let index = random.below(live.count)
        let id = live[index].id
        live.swapAt(index, live.count - 1)
        live.removeLast()
        slots[id] = nil
        if index < live.count { slots[live[index].id] = index }
        return .deleted(id)
    }

    private mutating func nextTitle() -> String {
        edits += 1
        return "edit \(edits)"
    }

    private mutating func otherSection(than section: String) -> String {
        var other = section
        while other == section { other = Dataset.randomSection(using: &random) }
        return other
    }
}
