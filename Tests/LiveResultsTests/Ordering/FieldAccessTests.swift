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

    struct Numbers: FetchableEntity {
        var id: Int
        var int: Int
        var int64: Int64
        var int32: Int32
        var int16: Int16
        var int8: Int8
        var uint: UInt
        var uint64: UInt64
        var uint32: UInt32
        var uint16: UInt16
        var uint8: UInt8
        var double: Double
        var float: Float
        var date: Date
        var optional: Int?

        init(_ value: Int) {
            id = value
            int = value &* 7_919 - 500_000
            int64 = Int64(int) << 20
            int32 = Int32(truncatingIfNeeded: int)
            int16 = Int16(truncatingIfNeeded: int)
            int8 = Int8(truncatingIfNeeded: int)
            uint = UInt(bitPattern: int)
            uint64 = UInt64(bitPattern: int64)
            uint32 = UInt32(truncatingIfNeeded: int)
            uint16 = UInt16(truncatingIfNeeded: int)
            uint8 = UInt8(truncatingIfNeeded: int)
            double = value.isMultiple(of: 5) ? -0.0 : Double(int) / 3
            float = Float(double)
            date = Date(timeIntervalSinceReferenceDate: double)
            optional = value.isMultiple(of: 2) ? nil : int
        }
    }

    static let numericDescriptors: [SortDescriptor<Numbers>] = [SortOrder.forward, .reverse].flatMap { order in
        [
            SortDescriptor(\Numbers.int, order: order), SortDescriptor(\Numbers.int64, order: order),
            SortDescriptor(\Numbers.int32, order: order), SortDescriptor(\Numbers.int16, order: order),
            SortDescriptor(\Numbers.int8, order: order), SortDescriptor(\Numbers.uint, order: order),
            SortDescriptor(\Numbers.uint64, order: order), SortDescriptor(\Numbers.uint32, order: order),
            SortDescriptor(\Numbers.uint16, order: order), SortDescriptor(\Numbers.uint8, order: order),
            SortDescriptor(\Numbers.double, order: order), SortDescriptor(\Numbers.float, order: order),
            SortDescriptor(\Numbers.date, order: order),
        ]
    }

    @Test("an abbreviated field abbreviates like the abbreviation closure", arguments: numericDescriptors.indices)
    func abbreviatedFields(index: Int) throws {
        let rule = _EntityOrdering<Numbers>.rule(of: [Self.numericDescriptors[index]])
        #expect(rule.abbreviatedField != nil)
        let abbreviation = try #require(rule.abbreviation)
        for value in -300..<300 {
            let numbers = Numbers(value)
            #expect(rule.abbreviate(numbers) == abbreviation(numbers), "value \(value)")
        }
    }

    @Test("optional, string and computed keys have no abbreviated field")
    func keysWithoutFields() {
        #expect(_EntityOrdering<Numbers>.rule(of: [SortDescriptor(\Numbers.optional)]).abbreviatedField == nil)
        #expect(_EntityOrdering<Record>.rule(of: [SortDescriptor(\Record.inner.name)]).abbreviatedField == nil)
        #expect(_EntityOrdering<Record>.rule(of: [SortDescriptor(\Record.computed)]).abbreviatedField == nil)
        #expect(
            _EntityOrdering<Record>.rule(of: [SortDescriptor(\Record.small), SortDescriptor(\Record.id)])
                .abbreviatedField != nil, "the first descriptor's key is abbreviated, not exactly")
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
