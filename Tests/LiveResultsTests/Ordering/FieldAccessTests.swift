import Foundation
import Testing

@testable import LiveResults

/// Key paths are read at their byte offset where they have one, through the runtime otherwise: both
/// must read the same values.
@Suite("Field access")
struct FieldAccessTests {
    struct Inner: Equatable {
        var flag: Bool
        var name: String
    }

    struct Record: FetchableEntity {
        var id: Int
        var small: UInt8
        var inner: Inner
        var optional: Double?
        var computed: String { inner.name + "!" }
    }

    final class Reference: FetchableEntity, @unchecked Sendable {
        let id: Int
        var name: String

        init(id: Int, name: String) {
            self.id = id
            self.name = name
        }

        static func == (lhs: Reference, rhs: Reference) -> Bool { lhs.id == rhs.id && lhs.name == rhs.name }
    }

    static let records = (0..<50).map {
        Record(
            id: $0, small: UInt8($0 * 5 % 256),
            inner: Inner(flag: $0 % 3 == 0, name: String(repeating: "n", count: $0)),
            optional: $0 % 4 == 0 ? nil : Double($0) / 3)
    }

    @Test("stored properties, nested or optional, read as through the key path")
    func storedProperties() {
        for record in Self.records {
            #expect(_FieldAccess.reader(\Record.id)(record) == record.id)
            #expect(_FieldAccess.reader(\Record.small)(record) == record.small)
            #expect(_FieldAccess.reader(\Record.inner)(record) == record.inner)
            #expect(_FieldAccess.reader(\Record.inner.name)(record) == record.inner.name)
            #expect(_FieldAccess.reader(\Record.inner.flag)(record) == record.inner.flag)
            #expect(_FieldAccess.reader(\Record.optional)(record) == record.optional)
        }
    }

    @Test("computed properties and class properties have no offset and still read right")
    func keyPathsWithoutOffsets() {
        #expect(MemoryLayout<Record>.offset(of: \Record.computed) == nil)
        #expect(MemoryLayout<Reference>.offset(of: \Reference.name) == nil)
        for record in Self.records { #expect(_FieldAccess.reader(\Record.computed)(record) == record.computed) }
        let reference = Reference(id: 1, name: "a long name that is not stored inline in the string")
        let read = _FieldAccess.reader(\Reference.name)
        #expect(read(reference) == reference.name)
        reference.name = "changed"
        #expect(read(reference) == "changed")
    }

    @Test("a section key path through a class entity sections by its current value")
    func sectionsOfClassEntities() {
        let ordering = _EntityOrdering<Reference>(
            sectionNameKeyPath: \Reference.name, sectionOrder: .ascending,
            rule: _EntityOrdering.rule(of: [SortDescriptor(\Reference.id)]))
        let references = (0..<10).map { Reference(id: $0, name: ["b", "a"][$0 % 2]) }
        let storage = _SectionedStorage(ordering: ordering, fetched: references)
        storage._checkInvariants()
        #expect(storage.sections.map(\.name) == ["a", "b"])
        #expect(storage.sections.map { $0.items.map(\.id) } == [[1, 3, 5, 7, 9], [0, 2, 4, 6, 8]])
    }
}
