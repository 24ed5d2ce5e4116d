extension _SectionedStorage {
    /// Traps unless the storage is well formed: the trees and the trie are, sections are non-empty and
    /// in section order, items are in order and in their own section, and every record has one slot.
    ///
    /// - Complexity: O(*n*); for tests.
    @inlinable func _checkInvariants() {
        sections._checkInvariants(keysAreEqual: ==)
        records._checkInvariants()
        var total = 0
        var previousName: String?
        for section in sections {
            precondition(!section.items.isEmpty, "section \(section.name) is empty")
            if let previousName {
                precondition(
                    ordering.sectionOrder.areInIncreasingOrder(previousName, section.name), "sections out of order")
            }
            previousName = section.name
            section.items._checkInvariants(keysAreEqual: ==)
            var previous: _StoredEntity<Entity>?
            for slot in section.items {
                guard let stored = records[slot.id] else { preconditionFailure("slot without a record") }
                precondition(ordering.sectionName(stored.entity) == section.name, "item in another section")
                precondition(slot.key == ordering.rule.abbreviate(stored.entity), "stale abbreviated key")
                if let previous { precondition(ordering.precedes(previous, stored), "items out of order") }
                previous = stored
            }
            total += section.items.count
        }
        precondition(total == records.count, "\(records.count) records for \(total) slots")
    }
}
