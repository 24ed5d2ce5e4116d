/// Building a whole storage at once: a fetch, a resort.
extension _SectionedStorage {
    /// Creates a storage holding `stored`, whose ids must be unique.
    ///
    /// - Complexity: See ``built(ordering:contents:)``.
    @inlinable init(ordering: _EntityOrdering<Entity>, contents stored: [_StoredEntity<Entity>]) {
        self = Self.built(ordering: ordering, contents: stored).storage
    }

    /// Creates a storage holding `entities`, whose ids must be unique, in insertion order.
    ///
    /// - Complexity: See ``built(ordering:contents:)``.
    @inlinable init(ordering: _EntityOrdering<Entity>, fetched entities: [Entity]) {
        self = Self.built(ordering: ordering, contents: _FetchContents(entities)).storage
    }

    /// A storage holding `stored`, whose ids must be unique, and what was placed at each position in
    /// display order: the entity's offset in `stored`, its section (the section's index) and its slot key.
    /// With `keepingHashOrder`, also the offsets in `stored` of the entities in the hash order of the
    /// records (see ``_HashTrie/built(uniqueValues:keepingHashOrder:)``), for a diff against another
    /// storage.
    ///
    /// Entities are sorted by section and abbreviated key with a radix sort; only entities whose
    /// abbreviated keys tie are compared, and only when their abbreviation is not exact (then by the
    /// whole ordering rule) or when `stored` is not in insertion order (then by insertion sequence).
    ///
    /// - Complexity: O(*n*) to number the sections and sort by abbreviated key, plus O(*k* log *k*)
    ///   comparisons for each run of *k* tied entities (a whole section when the sort has no
    ///   abbreviation), then O(*n*) to build the trees and the records.
    @inlinable static func built<Contents: RandomAccessCollection<_StoredEntity<Entity>>>(
        ordering: _EntityOrdering<Entity>,
        contents stored: Contents,
        keepingHashOrder: Bool = false
    ) -> (storage: Self, placed: [_SortEntry], hashOrder: [_HashedIndex]) where Contents.Index == Int {
        precondition(stored.count < Int(UInt32.max), "too many entities")
        var storage = Self(ordering: ordering)
        guard !stored.isEmpty else { return (storage, [], []) }
        var names = _SectionNameTable()
        var entries = [_SortEntry]()
        entries.reserveCapacity(stored.count)
        // The ids in input order, read in order: the slots gather them in display order from here, a
        // fraction of the memory of the entities.
        var ids = ContiguousArray<Entity.ID>()
        ids.reserveCapacity(stored.count)
        var inInsertionOrder = true
        let rule = ordering.rule
        var previous: UInt64? = nil
        // `stored[index]` is read field by field rather than bound once: a bound copy of the entity
        // costs a retain and a release of everything it references.
        for index in stored.indices {
            let section =
                if !ordering.isSectioned {
                    UInt32(0)
                } else if let offset = ordering.sectionNameOffset {
                    names.number(ofNameIn: stored[index].entity, at: offset)
                } else {
                    names.number(of: ordering.sectionName(stored[index].entity))
                }
            entries.append(
                _SortEntry(
                    key: rule.abbreviate(stored[index].entity), section: section,
                    index: UInt32(index - stored.startIndex)))
            ids.append(stored[index].entity.id)
            let sequence = stored[index].sequence
            if let previous, previous >= sequence { inInsertionOrder = false }
            previous = sequence
        }
        // Number the sections in section order.
        if !ordering.isSectioned { _ = names.number(of: "") }
        let sectionNames = names.names.sorted(by: ordering.sectionOrder.areInIncreasingOrder)
        if sectionNames.count > 1 {
            var rank = [UInt32](repeating: 0, count: sectionNames.count)
            for (position, name) in sectionNames.enumerated() { rank[Int(names.numbers[name]!)] = UInt32(position) }
            for index in entries.indices { entries[index].section = rank[Int(entries[index].section)] }
        }
        _RadixSort.sort(&entries, sectionCount: sectionNames.count)
        orderTies(&entries, of: stored, by: ordering, inInsertionOrder: inInsertionOrder)
        var sections = ContiguousArray<Section>()
        sections.reserveCapacity(sectionNames.count)
        var start = 0
        while start < entries.count {
            let section = entries[start].section
            var end = start + 1
            while end < entries.count && entries[end].section == section { end += 1 }
            let items = _Tree<Slot>(count: end - start) { item in
                let entry = entries[start + item]
                return Slot(id: ids[Int(entry.index)], key: entry.key)
            }
            sections.append(Section(name: sectionNames[Int(section)], items: items))
            start = end
        }
        storage.sections = _Tree(sorted: sections)
        let records = _HashTrie<Entity.ID, _StoredEntity<Entity>>.built(
            uniqueValues: stored, keepingHashOrder: keepingHashOrder)
        storage.records = records.trie
        return (storage, entries, records.hashOrder)
    }

    /// Orders the entries of each run of equal sections and abbreviated keys, which `entries` holds in
    /// input order: by the whole ordering rule, unless the run's abbreviation is exact, in which case
    /// only the insertion sequence decides, which the input order already follows if `inInsertionOrder`.
    @inlinable static func orderTies<Contents: RandomAccessCollection<_StoredEntity<Entity>>>(
        _ entries: inout [_SortEntry],
        of stored: Contents,
        by ordering: _EntityOrdering<Entity>,
        inInsertionOrder: Bool
    ) where Contents.Index == Int {
        let rule = ordering.rule
        guard !rule.abbreviationIsExact || !inInsertionOrder else { return }
        func entity(of entry: _SortEntry) -> _StoredEntity<Entity> { stored[stored.startIndex + Int(entry.index)] }
        func sequence(of entry: _SortEntry) -> UInt64 { entity(of: entry).sequence }
        var start = 0
        while start < entries.count {
            let (section, key) = (entries[start].section, entries[start].key)
            var end = start + 1
            while end < entries.count && entries[end].section == section && entries[end].key == key { end += 1 }
            if end - start > 1 {
                if rule.isExact(key) {
                    if !inInsertionOrder { entries[start..<end].sort { sequence(of: $0) < sequence(of: $1) } }
                } else {
                    entries[start..<end].sort { ordering.precedes(entity(of: $0), entity(of: $1)) }
                }
            }
            start = end
        }
    }
}
