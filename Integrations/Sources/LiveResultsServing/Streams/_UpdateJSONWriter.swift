import Foundation
import LiveResults
import NIOCore
import NIOFoundationCompat

/// Writes an update's JSON straight into a buffer, byte for byte what `JSONEncoder` writes for it, at the cost
/// of the bytes it writes.
///
/// `JSONEncoder` builds a tree of the whole update (its versions, positions and section names as much as its
/// entities) before writing a byte, which made most of an update's cost. Here the envelope (versions, index
/// paths, section names) is written by hand, and only the entities go through the encoder: one call for the
/// inserted and updated entities of a change set (an array, cut at its top-level commas), one per section of
/// the whole results. So the entities keep the encoder's strategies (dates, data, floats), and an update
/// costs about its entities' encoding, with one call's overhead.
///
/// It writes what `JSONEncoder` writes without options, or with `.withoutEscapingSlashes`: keys in the order
/// `ResultsUpdate` encodes them, strings escaped as it escapes them (`"`, `\`, `/` unless told not to, `\b`,
/// `\t`, `\n`, `\f`, `\r`, other control characters as `\u00xx`, everything else as UTF-8). An encoder whose
/// options change the envelope (pretty printing, sorted keys, a key strategy) has no writer: ``init(encoder:)``
/// returns `nil` and the update goes through the encoder whole.
package struct _UpdateJSONWriter<Entity: FetchableEntity & Codable>: Sendable {
    private let encoder: JSONEncoder
    /// Writes the entities, unless one needs `encoder` (see `_StreamingJSONEncoder`).
    private let streaming: _StreamingJSONEncoder?
    private let escapesSlashes: Bool

    /// A writer whose entities `encoder` encodes; `nil` when `encoder`'s options change more than its entities.
    ///
    /// The options are read once, here: the writer keeps writing as `encoder` was configured then.
    package init?(encoder: JSONEncoder) {
        guard case .useDefaultKeys = encoder.keyEncodingStrategy,
            encoder.outputFormatting.subtracting(.withoutEscapingSlashes).isEmpty
        else { return nil }
        self.encoder = encoder
        self.streaming = _StreamingJSONEncoder(writingAs: encoder)
        self.escapesSlashes = !encoder.outputFormatting.contains(.withoutEscapingSlashes)
    }

    /// Appends the JSON of `update` to `buffer`: one line, no newline.
    ///
    /// - Throws: What the encoder throws for an entity (a non-conforming float, a failing `encode(to:)`).
    /// - Complexity: O(*m*) for the *m* bytes written, plus encoding the update's entities.
    package func write(_ update: ResultsUpdate<Entity>, into buffer: inout ByteBuffer) throws {
        buffer.writeStaticString("{\"format\":")
        write(ResultsUpdate<Entity>.format, into: &buffer)
        buffer.writeStaticString(",\"version\":")
        write(update.version.description, into: &buffer)
        switch update.content {
        case .results(let sections):
            buffer.writeStaticString(",\"base\":null,\"sections\":[")
            for (offset, section) in sections.enumerated() {
                if offset > 0 { buffer.writeStaticString(",") }
                buffer.writeStaticString("{\"name\":")
                write(section.name, into: &buffer)
                buffer.writeStaticString(",\"entities\":")
                // The section's entities in one call: `JSONEncoder` writes an array nested or not alike.
                if streaming?.write(section.entities, into: &buffer) != true {
                    buffer.writeData(try encoder.encode(section.entities))
                }
                buffer.writeStaticString("}")
            }
            buffer.writeStaticString("]}")
        case .changes(let base, let changes):
            buffer.writeStaticString(",\"base\":")
            write(base.description, into: &buffer)
            buffer.writeStaticString(",\"changes\":")
            try write(changes, into: &buffer)
            buffer.writeStaticString("}")
        }
    }

    /// A change set, its empty lists left out, in the order of `ResultsUpdate.Changes`'s `encode(to:)`.
    private func write(_ changes: ResultsUpdate<Entity>.Changes, into buffer: inout ByteBuffer) throws {
        // The entities of the inserted items, then of the updated ones, by one call of the encoder.
        // A loop, not `map(\.entity)`: unspecialized, as this code runs, a key path is formed at run time.
        var changed: [Entity] = []
        changed.reserveCapacity(changes.insertedItems.count + changes.updatedItems.count)
        for item in changes.insertedItems { changed.append(item.entity) }
        for item in changes.updatedItems { changed.append(item.entity) }
        let entities = try encoded(changed)
        precondition(
            entities.ranges.count == changes.insertedItems.count + changes.updatedItems.count,
            "JSONEncoder wrote an array of another length")
        var nextEntity = 0
        /// `{"at":[section,item],"entity":…}`, with the next of the encoded entities.
        func item(_ item: ResultsUpdate<Entity>.Item, into buffer: inout ByteBuffer) {
            buffer.writeStaticString("{\"at\":")
            write(item.indexPath, into: &buffer)
            buffer.writeStaticString(",\"entity\":")
            let range = entities.ranges[nextEntity]
            buffer.writeBytes(entities.json.readableBytesView[range])
            nextEntity += 1
            buffer.writeStaticString("}")
        }
        var listed = false
        /// Opens the list `key` when `elements` is not empty; then writes each element with `element`.
        func list<Element>(
            _ key: StaticString, _ elements: [Element], _ element: (Element, inout ByteBuffer) throws -> Void
        ) rethrows {
            guard !elements.isEmpty else { return }
            buffer.writeStaticString(listed ? "," : "{")
            listed = true
            buffer.writeStaticString(key)
            for (offset, value) in elements.enumerated() {
                buffer.writeStaticString(offset == 0 ? "[" : ",")
                try element(value, &buffer)
            }
            buffer.writeStaticString("]")
        }
        list("\"deletedSections\":", changes.deletedSections) { write($0, into: &$1) }
        list("\"insertedSections\":", changes.insertedSections) { section, buffer in
            buffer.writeStaticString("{\"index\":")
            write(section.index, into: &buffer)
            buffer.writeStaticString(",\"name\":")
            write(section.name, into: &buffer)
            buffer.writeStaticString("}")
        }
        list("\"deletedItems\":", changes.deletedItems) { write($0, into: &$1) }
        list("\"insertedItems\":", changes.insertedItems, item)
        list("\"movedItems\":", changes.movedItems) { move, buffer in
            buffer.writeStaticString("{\"from\":")
            write(move.from, into: &buffer)
            buffer.writeStaticString(",\"to\":")
            write(move.to, into: &buffer)
            buffer.writeStaticString("}")
        }
        list("\"updatedItems\":", changes.updatedItems, item)
        // An empty change set is an empty object, as the encoder writes a keyed container it put nothing in.
        buffer.writeStaticString(listed ? "}" : "{}")
    }

    /// The JSON of each of `entities` and where each is in it: written one by one by the streaming encoder, else
    /// by one call of `JSONEncoder`.
    private func encoded(_ entities: [Entity]) throws -> (json: ByteBuffer, ranges: [Range<Int>]) {
        guard !entities.isEmpty else { return (ByteBuffer(), []) }
        if let streaming, let written = streamed(entities, by: streaming) { return written }
        let json = ByteBuffer(data: try encoder.encode(entities))
        return (json, Self.elements(ofArray: json.readableBytesView))
    }

    /// The entities written one after the other by `streaming`; `nil` when one of them needs `JSONEncoder`.
    private func streamed(
        _ entities: [Entity], by streaming: _StreamingJSONEncoder
    ) -> (json: ByteBuffer, ranges: [Range<Int>])? {
        var json = ByteBufferAllocator().buffer(capacity: 128 * entities.count)
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(entities.count)
        for entity in entities {
            let start = json.writerIndex
            guard streaming.write(entity, into: &json) else { return nil }
            ranges.append(start..<json.writerIndex)
        }
        return (json, ranges)
    }

    /// Where each element of a JSON array is, cut at its commas between elements.
    ///
    /// Without pretty printing the encoder writes no whitespace, so an element ends at a comma or the closing
    /// bracket outside strings and at the array's own depth.
    private static func elements(ofArray json: ByteBufferView) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var depth = 0
        var inString = false
        var escaped = false
        var start = 1
        for (offset, byte) in json.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { ranges.append(start..<offset) }
            case UInt8(ascii: ",") where depth == 1:
                ranges.append(start..<offset)
                start = offset + 1
            default: break
            }
        }
        return ranges
    }

    /// `[section,item]`.
    private func write(_ indexPath: IndexPath, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("[")
        write(indexPath[0], into: &buffer)
        buffer.writeStaticString(",")
        write(indexPath[1], into: &buffer)
        buffer.writeStaticString("]")
    }

    /// An integer in decimal, as the encoder writes it.
    private func write(_ value: Int, into buffer: inout ByteBuffer) {
        buffer.writeJSONInteger(value)
    }

    /// A string in quotes, escaped as the encoder escapes it.
    private func write(_ string: String, into buffer: inout ByteBuffer) {
        buffer.writeJSONString(string, escapingSlashes: escapesSlashes)
    }
}
