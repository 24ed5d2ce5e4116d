extension _SectionedStorage {
    /// Traps unless the storage is well formed: sections non-empty and in section order, items in
    /// order and in their own section, and the id table agreeing with the items.
    ///
    /// - Complexity: O(*n*); for tests.
    func _checkInvariants() {
        var total = 0
        for (index, section) in sections.enumerated() {
            precondition(!section.items.isEmpty, "section \(index) is empty")
            if index > 0 {
                precondition(
                    ordering.sectionOrder.areInIncreasingOrder(sections[index - 1].name, section.name),
                    "sections \(index - 1) and \(index) are out of order"
                )
            }
            for (item, stored) in section.items.enumerated() {
                precondition(
                    ordering.sectionName(stored.entity) == section.name, "item \(index).\(item) is in another section")
                if item > 0 {
                    precondition(
                        ordering.precedes(section.items[item - 1], stored),
                        "items \(index).\(item - 1) and \(item) are out of order")
                }
                let entry = entries[stored.entity.id]
                precondition(
                    entry?.sequence == stored.sequence && entry?.entity == stored.entity,
                    "id table disagrees at \(index).\(item)")
            }
            total += section.items.count
        }
        precondition(total == entries.count, "the id table has \(entries.count) entries for \(total) items")
    }
}
