import Foundation
import NIOCore

extension _StreamingJSONEncoder {
    /// The encoder a value encodes itself into: one container, whose text goes straight into the output, closed
    /// once the value's `encode(to:)` returns.
    final class _Encoder: Encoder {
        /// The container the value asked for; an object or an array counts its elements, to write the commas.
        enum Container {
            case none
            case object(count: Int)
            case array(count: Int)
            case single(written: Bool)
        }

        let output: _Output
        let parent: _Encoder?
        let key: (any CodingKey)?
        var container = Container.none

        init(output: _Output, parent: _Encoder?, key: (any CodingKey)?) {
            self.output = output
            self.parent = parent
            self.key = key
        }

        var codingPath: [any CodingKey] {
            var path: [any CodingKey] = []
            var encoder: _Encoder? = self
            while let current = encoder, let key = current.key {
                path.append(key)
                encoder = current.parent
            }
            return path.reversed()
        }

        var userInfo: [CodingUserInfoKey: Any] { output.options.userInfo }

        func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
            open(.object(count: 0))
            return KeyedEncodingContainer(_ObjectContainer<Key>(encoder: self))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            open(.array(count: 0))
            return _ArrayContainer(encoder: self)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            open(.single(written: false))
            return _SingleValueContainer(encoder: self)
        }

        /// Takes the value's one container; a second (a class encoding its superclass's container too) is left to
        /// `JSONEncoder`, which merges them.
        private func open(_ kind: Container) {
            guard case .none = container else { return output.fail() }
            container = kind
        }

        /// Writes `value` with this encoder, which has no container yet: the types `JSONEncoder` writes its own
        /// way, else what `value.encode(to:)` hands over.
        func writeValue<Value: Encodable>(_ value: Value) throws {
            if Value.self == Date.self {
                if let seconds = output.options.secondsSince1970(of: value as! Date) { return output.write(seconds) }
            } else if Value.self == Data.self {
                guard output.options.dataInBase64 else { return output.fail() }
                return output.write((value as! Data).base64EncodedString())
            } else if Value.self == URL.self {
                return output.write((value as! URL).absoluteString)
            } else if Value.self == Decimal.self {
                output.buffer.writeString((value as! Decimal).description)
                return
            }
            try value.encode(to: self)
            close()
        }

        /// Closes the container once the value has encoded itself.
        func close() {
            switch container {
            case .none: output.fail()  // `JSONEncoder` writes `{}`, or refuses a value at the top level.
            case .object(let count): output.buffer.writeStaticString(count == 0 ? "{}" : "}")
            case .array(let count): output.buffer.writeStaticString(count == 0 ? "[]" : "]")
            case .single(let written): if !written { output.fail() }
            }
        }

        /// Writes the separator before the next element of the object or array: the opening bracket first.
        func separate() {
            switch container {
            case .object(let count):
                output.buffer.writeStaticString(count == 0 ? "{" : ",")
                container = .object(count: count + 1)
            case .array(let count):
                output.buffer.writeStaticString(count == 0 ? "[" : ",")
                container = .array(count: count + 1)
            case .none, .single: output.fail()
            }
        }

        /// The next element's key, quoted, and its colon.
        func writeKey(_ key: some CodingKey) {
            separate()
            output.write(key.stringValue)
            output.buffer.writeStaticString(":")
        }

        /// A container of an encoder nobody reads, for what this encoder leaves to `JSONEncoder`: nested
        /// containers, whose writes could interleave with their parent's.
        func unsupported() -> _Encoder {
            output.fail()
            return _Encoder(output: _Output(options: output.options), parent: self, key: nil)
        }
    }

    /// An object's container: each element its key, then its value.
    struct _ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: _Encoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil(forKey key: Key) {
            encoder.writeKey(key)
            encoder.output.writeNull()
        }
        mutating func encode(_ value: Bool, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: String, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: Double, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: Float, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: Int, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: Int8, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: Int16, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: Int32, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: Int64, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: UInt, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: UInt8, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: UInt16, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: UInt32, forKey key: Key) { element(key).write(value) }
        mutating func encode(_ value: UInt64, forKey key: Key) { element(key).write(value) }

        mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
            encoder.writeKey(key)
            try _Encoder(output: encoder.output, parent: encoder, key: key).writeValue(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey _: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            encoder.unsupported().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey _: Key) -> any UnkeyedEncodingContainer {
            encoder.unsupported().unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { encoder.unsupported() }
        mutating func superEncoder(forKey _: Key) -> any Encoder { encoder.unsupported() }

        /// The output, after the element's key.
        private func element(_ key: Key) -> _Output {
            encoder.writeKey(key)
            return encoder.output
        }
    }

    /// An array's container: its elements, separated by commas.
    struct _ArrayContainer: UnkeyedEncodingContainer {
        let encoder: _Encoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int {
            if case .array(let count) = encoder.container { return count }
            return 0
        }

        mutating func encodeNil() {
            encoder.separate()
            encoder.output.writeNull()
        }
        mutating func encode(_ value: Bool) { element().write(value) }
        mutating func encode(_ value: String) { element().write(value) }
        mutating func encode(_ value: Double) { element().write(value) }
        mutating func encode(_ value: Float) { element().write(value) }
        mutating func encode(_ value: Int) { element().write(value) }
        mutating func encode(_ value: Int8) { element().write(value) }
        mutating func encode(_ value: Int16) { element().write(value) }
        mutating func encode(_ value: Int32) { element().write(value) }
        mutating func encode(_ value: Int64) { element().write(value) }
        mutating func encode(_ value: UInt) { element().write(value) }
        mutating func encode(_ value: UInt8) { element().write(value) }
        mutating func encode(_ value: UInt16) { element().write(value) }
        mutating func encode(_ value: UInt32) { element().write(value) }
        mutating func encode(_ value: UInt64) { element().write(value) }

        mutating func encode<Value: Encodable>(_ value: Value) throws {
            let index = count
            encoder.separate()
            try _Encoder(output: encoder.output, parent: encoder, key: _IndexKey(index)).writeValue(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            encoder.unsupported().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            encoder.unsupported().unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { encoder.unsupported() }

        /// The output, after the separator.
        private func element() -> _Output {
            encoder.separate()
            return encoder.output
        }
    }

    /// A single value's container: the value, once.
    struct _SingleValueContainer: SingleValueEncodingContainer {
        let encoder: _Encoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() { value().writeNull() }
        mutating func encode(_ value: Bool) { self.value().write(value) }
        mutating func encode(_ value: String) { self.value().write(value) }
        mutating func encode(_ value: Double) { self.value().write(value) }
        mutating func encode(_ value: Float) { self.value().write(value) }
        mutating func encode(_ value: Int) { self.value().write(value) }
        mutating func encode(_ value: Int8) { self.value().write(value) }
        mutating func encode(_ value: Int16) { self.value().write(value) }
        mutating func encode(_ value: Int32) { self.value().write(value) }
        mutating func encode(_ value: Int64) { self.value().write(value) }
        mutating func encode(_ value: UInt) { self.value().write(value) }
        mutating func encode(_ value: UInt8) { self.value().write(value) }
        mutating func encode(_ value: UInt16) { self.value().write(value) }
        mutating func encode(_ value: UInt32) { self.value().write(value) }
        mutating func encode(_ value: UInt64) { self.value().write(value) }

        mutating func encode<Value: Encodable>(_ value: Value) throws {
            let output = self.value()
            // A value in a single value's container has that container's place in the coding path.
            try _Encoder(output: output, parent: encoder.parent, key: encoder.key).writeValue(value)
        }

        /// The output, once: a second value in one container is left to `JSONEncoder`, which refuses it.
        private func value() -> _Output {
            if case .single(written: false) = encoder.container {
                encoder.container = .single(written: true)
            } else {
                encoder.output.fail()
            }
            return encoder.output
        }
    }

    /// An array element's key in a coding path.
    struct _IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }
        init(_ index: Int) { intValue = index }
        init?(stringValue _: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }
}
