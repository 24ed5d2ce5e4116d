/// An encoder that digests what a value encodes, for ``_ContentDigest/of(_:)-(Encodable)``: the same digest in
/// every process for the same contents, without writing any text.
///
/// A value's digest is made of its containers': an object's is a sum over its members (each its key's digest
/// mixed with its value's), so that the order of its keys, which a dictionary's hash seed changes from process to
/// process, does not count; an array's folds its elements in order; a single value's is its type's tag and
/// its bits (a string's UTF-8). Nested containers asked for by name may be written in any order with their
/// parent's, so they are folded in when the value is done.
///
/// Digesting the JSON of each entity with `JSONEncoder` (sorted keys) cost about 14 µs an entity, twice per
/// updated entity of a window whose versions are named by their contents: most of what following a table
/// cost a server. This costs about its fields' calls.
final class _DigestEncoder: Encoder {
    /// What the value encoded so far.
    private enum Container {
        case none
        /// The sum of the members' mixed digests, and how many.
        case object(sum: UInt64, count: Int)
        /// The elements' digests folded in order.
        case array(_ContentDigest.State, count: Int)
        case single(UInt64)
    }

    private var container = Container.none
    /// Containers asked for by name, with their keys' digests: folded in by ``digest``.
    private var nested: [(key: UInt64, encoder: _DigestEncoder)] = []
    /// Whether the value encoded itself into two kinds of container, or twice into a single one: no digest.
    private var failed = false

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The digest of `value`; `nil` when its encoding throws or is not one value.
    static func digest(of value: some Encodable) -> UInt64? {
        let encoder = _DigestEncoder()
        guard (try? value.encode(to: encoder)) != nil else { return nil }
        return encoder.digest
    }

    /// The digest of what was encoded into this encoder, its nested containers folded in.
    var digest: UInt64? {
        guard !failed else { return nil }
        var state = _ContentDigest.State()
        switch container {
        case .none:
            state.add(tag: 0)
        case .object(var sum, var count):
            for (key, encoder) in nested {
                guard let value = encoder.digest else { return nil }
                sum &+= _ContentDigest.mix(key, value)
                count += 1
            }
            state.add(tag: 1)
            state.add(word: sum)
            state.add(word: UInt64(count))
        case .array(var elements, let count):
            for (_, encoder) in nested {
                guard let value = encoder.digest else { return nil }
                elements.add(word: value)
            }
            state.add(tag: 2)
            state.add(word: elements.finish())
            state.add(word: UInt64(count + nested.count))
        case .single(let value):
            return value
        }
        return state.finish()
    }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        switch container {
        case .none: container = .object(sum: 0, count: 0)
        case .object: break  // A subclass and its superclass share their object, as in `JSONEncoder`.
        case .array, .single: failed = true
        }
        return KeyedEncodingContainer(ObjectContainer(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch container {
        case .none: container = .array(_ContentDigest.State(), count: 0)
        case .array: break
        case .object, .single: failed = true
        }
        return ArrayContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }

    // MARK: What the containers add

    /// Adds a member: `key`'s digest mixed with `value`'s.
    fileprivate func add(key: some CodingKey, value: UInt64?) {
        guard let value, case .object(let sum, let count) = container else { return failed = true }
        container = .object(sum: sum &+ _ContentDigest.mix(_ContentDigest.of(key.stringValue), value), count: count + 1)
    }

    /// Adds an array's next element.
    fileprivate func add(element value: UInt64?) {
        guard let value, case .array(var elements, let count) = container else { return failed = true }
        elements.add(word: value)
        container = .array(elements, count: count + 1)
    }

    /// Sets the single value.
    fileprivate func set(single value: UInt64?) {
        guard let value, case .none = container else { return failed = true }
        container = .single(value)
    }

    /// A container asked for by name, under `key` (an array's next index when `nil`).
    fileprivate func nestedEncoder(key: (some CodingKey)?) -> _DigestEncoder {
        let encoder = _DigestEncoder()
        nested.append((key.map { _ContentDigest.of($0.stringValue) } ?? 0, encoder))
        return encoder
    }

    /// The digest of a value that encodes itself.
    fileprivate static func digest(ofValue value: some Encodable) throws -> UInt64? {
        let encoder = _DigestEncoder()
        try value.encode(to: encoder)
        return encoder.digest
    }

    // MARK: The digests of single values

    fileprivate static func digest(_ tag: UInt8, word: UInt64) -> UInt64 {
        var state = _ContentDigest.State()
        state.add(tag: tag)
        state.add(word: word)
        return state.finish()
    }
    fileprivate static var null: UInt64 { digest(3, word: 0) }
    fileprivate static func digest(_ value: Bool) -> UInt64 { digest(4, word: value ? 1 : 0) }
    fileprivate static func digest(_ value: String) -> UInt64 {
        var state = _ContentDigest.State()
        state.add(tag: 5)
        state.add(value.utf8)
        return state.finish()
    }
    fileprivate static func digest(_ value: some BinaryInteger) -> UInt64 {
        // Every integer type alike, by its value: a column read as `Int32` or `Int` names the same contents.
        value < 0 ? digest(6, word: UInt64(truncatingIfNeeded: Int64(value))) : digest(7, word: UInt64(value))
    }
    fileprivate static func digest(_ value: Double) -> UInt64 { digest(8, word: value.bitPattern) }
    fileprivate static func digest(_ value: Float) -> UInt64 { digest(Double(value)) }
}

extension _DigestEncoder {
    private struct ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: _DigestEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) { encoder.add(key: key, value: _DigestEncoder.null) }
        mutating func encode(_ value: Bool, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: String, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: Double, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: Float, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: Int, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: Int8, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: Int16, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: Int32, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: Int64, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: UInt, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: UInt8, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: UInt16, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: UInt32, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode(_ value: UInt64, forKey key: Key) { encoder.add(key: key, value: digest(value)) }
        mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
            encoder.add(key: key, value: try digest(ofValue: value))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            encoder.nestedEncoder(key: key).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            encoder.nestedEncoder(key: key).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { encoder.nestedEncoder(key: SuperKey()) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.nestedEncoder(key: key) }
    }

    private struct ArrayContainer: UnkeyedEncodingContainer {
        let encoder: _DigestEncoder
        var codingPath: [any CodingKey] { [] }
        var count: Int {
            guard case .array(_, let count) = encoder.container else { return 0 }
            return count + encoder.nested.count
        }

        mutating func encodeNil() { encoder.add(element: _DigestEncoder.null) }
        mutating func encode(_ value: Bool) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: String) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: Double) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: Float) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: Int) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: Int8) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: Int16) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: Int32) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: Int64) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: UInt) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: UInt8) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: UInt16) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: UInt32) { encoder.add(element: digest(value)) }
        mutating func encode(_ value: UInt64) { encoder.add(element: digest(value)) }
        mutating func encode<Value: Encodable>(_ value: Value) throws {
            encoder.add(element: try digest(ofValue: value))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            encoder.nestedEncoder(key: SuperKey?.none).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            encoder.nestedEncoder(key: SuperKey?.none).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { encoder.nestedEncoder(key: SuperKey?.none) }
    }

    private struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: _DigestEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() { encoder.set(single: _DigestEncoder.null) }
        mutating func encode(_ value: Bool) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: String) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: Double) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: Float) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: Int) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: Int8) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: Int16) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: Int32) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: Int64) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: UInt) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: UInt8) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: UInt16) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: UInt32) { encoder.set(single: digest(value)) }
        mutating func encode(_ value: UInt64) { encoder.set(single: digest(value)) }
        mutating func encode<Value: Encodable>(_ value: Value) throws {
            encoder.set(single: try digest(ofValue: value))
        }
    }

    /// The key of a superclass's container, as `JSONEncoder` names it.
    private struct SuperKey: CodingKey {
        var stringValue: String { "super" }
        var intValue: Int? { nil }
        init() {}
        init?(stringValue _: String) { nil }
        init?(intValue _: Int) { nil }
    }
}
