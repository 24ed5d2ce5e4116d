import Foundation

/// Decodes an entity straight from the text columns `pgoutput` sent, without writing and parsing its JSON.
///
/// It takes the common shape only, whose result is the one `JSONDecoder` gives for the row's JSON (see
/// `_RowJSON`): the entity's keys are column names (a decoder with `.useDefaultKeys`); each value is a whole
/// number of an integer column, a `Double` of a floating-point or `numeric` column, a `Bool` of a `bool` column, a
/// `String` of a text-like column, or `nil` for `NULL` — directly or through a `Decodable` that reads one of those
/// (a `RawRepresentable` enum, a `UUID`). Anything else — a type `JSONDecoder` decodes by its strategies (`Date`,
/// `Data`, `URL`, `Decimal`), a nested container, a value that does not parse, a key not among the columns —
/// throws ``Unsupported``, and the caller decodes the row's JSON instead, with the table's decoder: that decides,
/// errors included.
///
/// A class, used by one decoding at a time: passed as `any Decoder`, a struct of its size would be boxed on the
/// heap for each row anyway, and the class holds the keyed container's cursor too, one allocation in all.
final class _ColumnDecoder: Decoder {
    /// The row does not have the shape this decoder takes: decode its JSON.
    struct Unsupported: Error {}

    let row: _RowColumns
    /// The column whose value a single-value container reads; `nil` at the top.
    let column: Int?
    let userInfo: [CodingUserInfoKey: Any]
    var codingPath: [any CodingKey] { [] }
    /// The column after the one a key found last: a `Decodable` reads its keys in declaration order, which is
    /// usually the table's, so each key is found at once rather than by a search of every column.
    private var next = 0

    init(row: _RowColumns, column: Int?, userInfo: [CodingUserInfoKey: Any]) {
        (self.row, self.column, self.userInfo) = (row, column, userInfo)
    }

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard column == nil else { throw Unsupported() }
        return KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    /// The index of the column named `name`: the one after the last found when it is that one.
    func column(named name: String) throws -> Int {
        let columns = row.columns
        if next < columns.count, columns[next].name == name {
            next += 1
            return next - 1
        }
        guard let index = columns.firstIndex(where: { $0.name == name }) else { throw Unsupported() }
        next = index + 1
        return index
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Unsupported() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard let column else { throw Unsupported() }
        return Single(decoder: self, column: column)
    }

    /// The text of `column`, `nil` for `NULL`.
    func text(_ column: Int) -> String? {
        if case .text(let text) = row.values[column] { text } else { nil }
    }

    /// `T` from `column`, for a type `JSONDecoder` reads alike whatever its strategies.
    func decode<T: Decodable>(_: T.Type, column: Int) throws -> T {
        switch T.self {
        case is Date.Type, is Data.Type, is URL.Type, is Decimal.Type: throw Unsupported()
        default: return try T(from: _ColumnDecoder(row: row, column: column, userInfo: userInfo))
        }
    }

    /// A whole number of an integer column.
    func integer<T: FixedWidthInteger>(_: T.Type, column: Int) throws -> T {
        guard row.columns[column].kind == .integer, let text = text(column),
            let value = T(text)
        else { throw Unsupported() }
        return value
    }

    /// A number of a numeric column, as `JSONDecoder` reads the number `_RowJSON` writes: correctly rounded, as
    /// `Double(_:)` reads it. (A `Float` is left to `JSONDecoder`, whose rounding of it is its own.)
    func floatingPoint<T: LosslessStringConvertible>(_: T.Type, column: Int) throws -> T {
        guard row.columns[column].kind == .floatingPoint, let text = text(column),
            text.first.map({ $0.isNumber || $0 == "-" }) == true, !text.hasSuffix("Infinity"), let value = T(text)
        else { throw Unsupported() }
        return value
    }

    func bool(column: Int) throws -> Bool {
        guard row.columns[column].kind == .bool, let text = text(column) else { throw Unsupported() }
        return text == "t"
    }

    /// The text of a column `_RowJSON` writes as a string of its text.
    func string(column: Int) throws -> String {
        guard row.columns[column].kind == .text, let text = text(column) else { throw Unsupported() }
        return text
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: _ColumnDecoder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { decoder.row.columns.compactMap { Key(stringValue: $0.name) } }

        func column(_ key: Key) throws -> Int { try decoder.column(named: key.stringValue) }

        /// The column of `key`, unless its value is `NULL`.
        func present(_ key: Key) throws -> Int {
            let index = try column(key)
            guard decoder.text(index) != nil else { throw Unsupported() }
            return index
        }

        func contains(_ key: Key) -> Bool { (try? column(key)) != nil }
        func decodeNil(forKey key: Key) throws -> Bool { decoder.text(try column(key)) == nil }
        func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(column: present(key)) }
        func decode(_: String.Type, forKey key: Key) throws -> String { try decoder.string(column: present(key)) }
        func decode(_: Double.Type, forKey key: Key) throws -> Double {
            try decoder.floatingPoint(Double.self, column: present(key))
        }
        func decode(_: Float.Type, forKey _: Key) throws -> Float { throw Unsupported() }
        func decode(_: Int.Type, forKey key: Key) throws -> Int { try decoder.integer(Int.self, column: present(key)) }
        func decode(_: Int8.Type, forKey key: Key) throws -> Int8 {
            try decoder.integer(Int8.self, column: present(key))
        }
        func decode(_: Int16.Type, forKey key: Key) throws -> Int16 {
            try decoder.integer(Int16.self, column: present(key))
        }
        func decode(_: Int32.Type, forKey key: Key) throws -> Int32 {
            try decoder.integer(Int32.self, column: present(key))
        }
        func decode(_: Int64.Type, forKey key: Key) throws -> Int64 {
            try decoder.integer(Int64.self, column: present(key))
        }
        func decode(_: UInt.Type, forKey key: Key) throws -> UInt {
            try decoder.integer(UInt.self, column: present(key))
        }
        func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 {
            try decoder.integer(UInt8.self, column: present(key))
        }
        func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 {
            try decoder.integer(UInt16.self, column: present(key))
        }
        func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 {
            try decoder.integer(UInt32.self, column: present(key))
        }
        func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 {
            try decoder.integer(UInt64.self, column: present(key))
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try decoder.decode(type, column: present(key))
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy _: NestedKey.Type, forKey _: Key
        ) throws -> KeyedDecodingContainer<NestedKey> { throw Unsupported() }
        func nestedUnkeyedContainer(forKey _: Key) throws -> any UnkeyedDecodingContainer { throw Unsupported() }
        func superDecoder() throws -> any Decoder { throw Unsupported() }
        func superDecoder(forKey _: Key) throws -> any Decoder { throw Unsupported() }
    }

    struct Single: SingleValueDecodingContainer {
        let decoder: _ColumnDecoder
        let column: Int
        var codingPath: [any CodingKey] { [] }

        /// The column, unless its value is `NULL`.
        func present() throws -> Int {
            guard decoder.text(column) != nil else { throw Unsupported() }
            return column
        }

        func decodeNil() -> Bool { decoder.text(column) == nil }
        func decode(_: Bool.Type) throws -> Bool { try decoder.bool(column: present()) }
        func decode(_: String.Type) throws -> String { try decoder.string(column: present()) }
        func decode(_: Double.Type) throws -> Double { try decoder.floatingPoint(Double.self, column: present()) }
        func decode(_: Float.Type) throws -> Float { throw Unsupported() }
        func decode(_: Int.Type) throws -> Int { try decoder.integer(Int.self, column: present()) }
        func decode(_: Int8.Type) throws -> Int8 { try decoder.integer(Int8.self, column: present()) }
        func decode(_: Int16.Type) throws -> Int16 { try decoder.integer(Int16.self, column: present()) }
        func decode(_: Int32.Type) throws -> Int32 { try decoder.integer(Int32.self, column: present()) }
        func decode(_: Int64.Type) throws -> Int64 { try decoder.integer(Int64.self, column: present()) }
        func decode(_: UInt.Type) throws -> UInt { try decoder.integer(UInt.self, column: present()) }
        func decode(_: UInt8.Type) throws -> UInt8 { try decoder.integer(UInt8.self, column: present()) }
        func decode(_: UInt16.Type) throws -> UInt16 { try decoder.integer(UInt16.self, column: present()) }
        func decode(_: UInt32.Type) throws -> UInt32 { try decoder.integer(UInt32.self, column: present()) }
        func decode(_: UInt64.Type) throws -> UInt64 { try decoder.integer(UInt64.self, column: present()) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type, column: present()) }
    }
}
