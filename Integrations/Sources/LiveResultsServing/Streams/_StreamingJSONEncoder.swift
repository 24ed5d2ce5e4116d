import Foundation
import NIOCore

/// Writes the JSON of `Encodable` values straight into a buffer, as `JSONEncoder` writes it, without the tree
/// `JSONEncoder` builds first.
///
/// `JSONEncoder` turns a value into a tree of its own (a dictionary per object, a string per number) and then
/// writes the tree: about 14 µs for a row of five columns on this project's machine, which was the whole budget of
/// an update sent to a stream. Here each value is written as its `encode(to:)` hands it over, so a row costs
/// about its bytes.
///
/// It writes what `JSONEncoder` writes without options or with `.withoutEscapingSlashes`, with its default key
/// strategy, for what entities are made of: objects, arrays, strings, numbers, booleans and `null`, dates by
/// `.deferredToDate`, `.secondsSince1970` or `.millisecondsSince1970`, data in base 64, URLs and decimals as
/// `JSONEncoder` special-cases them. Two differences, neither of which changes what a JSON parser reads: an
/// object's keys come in the order `encode(to:)` gives them (`JSONEncoder` writes them in its dictionary's order,
/// which changes from process to process), and a key encoded twice is written twice (a parser keeps the last, as
/// `JSONEncoder` does).
///
/// What it does not write as `JSONEncoder` would — a value that asks for a nested container or a super encoder
/// by name (whose writes could interleave with its parent's), one that encodes nothing or asks for two
/// containers, a non-finite float, a date or data under another strategy, an error thrown by `encode(to:)` —
/// ``write(_:into:)`` reports by returning `false`, its writes undone: the caller encodes that value with
/// `JSONEncoder`, which then answers as it always did (its error included).
package struct _StreamingJSONEncoder: Sendable {
    /// How dates are written: the strategies this encoder follows, or none.
    enum DateEncoding: Sendable {
        case deferredToDate
        case secondsSince1970
        case millisecondsSince1970
        /// A formatter or a closure: `JSONEncoder` writes those dates.
        case other
    }

    let escapesSlashes: Bool
    let dates: DateEncoding
    /// Whether data is written in base 64, `JSONEncoder`'s default.
    let dataInBase64: Bool
    // `[CodingUserInfoKey: any Sendable]`, as `JSONEncoder` keeps it.
    let userInfo: [CodingUserInfoKey: any Sendable]

    /// An encoder that writes as `encoder` would; `nil` when `encoder`'s options change more than its values'
    /// text (pretty printing, sorted keys, a key strategy).
    ///
    /// The options are read once, here.
    package init?(writingAs encoder: JSONEncoder) {
        guard case .useDefaultKeys = encoder.keyEncodingStrategy,
            encoder.outputFormatting.subtracting(.withoutEscapingSlashes).isEmpty
        else { return nil }
        escapesSlashes = !encoder.outputFormatting.contains(.withoutEscapingSlashes)
        switch encoder.dateEncodingStrategy {
        case .deferredToDate: dates = .deferredToDate
        case .secondsSince1970: dates = .secondsSince1970
        case .millisecondsSince1970: dates = .millisecondsSince1970
        default: dates = .other
        }
        if case .base64 = encoder.dataEncodingStrategy { dataInBase64 = true } else { dataInBase64 = false }
        userInfo = encoder.userInfo
    }

    /// A date's seconds since 1970, as `JSONEncoder` writes it by the encoder's strategy; `nil` when it is
    /// `.deferredToDate` (the date encodes itself, as with `JSONEncoder`). A date under a formatter or a closure
    /// is left to `JSONEncoder`.
    func secondsSince1970(of date: Date) -> Double? {
        switch dates {
        case .deferredToDate: nil
        case .secondsSince1970: date.timeIntervalSince1970
        case .millisecondsSince1970: date.timeIntervalSince1970 * 1000
        case .other: .nan  // Not finite: the output fails, and `JSONEncoder` writes the date.
        }
    }

    /// Appends the JSON of `value` to `buffer`; `false`, with `buffer` as it was, when `value` needs
    /// `JSONEncoder` (see the type's documentation).
    ///
    /// - Complexity: O(*m*) for the *m* bytes written.
    package func write<Value: Encodable>(_ value: Value, into buffer: inout ByteBuffer) -> Bool {
        let start = buffer.writerIndex
        let output = _Output(options: self)
        // The buffer moves into the output and back: one owner, so no write copies it.
        swap(&output.buffer, &buffer)
        let encoder = _Encoder(output: output, parent: nil, key: nil)
        do {
            try encoder.writeValue(value)
        } catch {
            output.failed = true
        }
        swap(&output.buffer, &buffer)
        if output.failed { buffer.moveWriterIndex(to: start) }
        return !output.failed
    }
}

extension _StreamingJSONEncoder {
    /// What the encoders of one value write into, and whether one of them met what it leaves to `JSONEncoder`.
    final class _Output {
        var buffer = ByteBuffer()
        var failed = false
        let options: _StreamingJSONEncoder

        init(options: _StreamingJSONEncoder) { self.options = options }

        /// A value this encoder does not write: the whole value goes to `JSONEncoder`.
        func fail() { failed = true }

        func writeNull() { buffer.writeStaticString("null") }
        func write(_ value: Bool) { buffer.writeStaticString(value ? "true" : "false") }
        func write(_ value: String) { buffer.writeJSONString(value, escapingSlashes: options.escapesSlashes) }
        func write<Integer: FixedWidthInteger>(_ value: Integer) { buffer.writeJSONInteger(value) }

        func write<Number: BinaryFloatingPoint & CustomStringConvertible>(_ value: Number) {
            // `JSONEncoder` throws, or writes a string, by its strategy for non-finite numbers.
            guard value.isFinite else { return fail() }
            buffer.writeJSONNumber(value)
        }
    }
}
