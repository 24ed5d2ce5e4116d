import NIOCore

extension ByteBuffer {
    /// Writes `string` in quotes, escaped as `JSONEncoder` escapes it: `"`, `\`, `/` when `escapingSlashes`,
    /// `\b`, `\t`, `\n`, `\f`, `\r`, other control characters as `\u00xx`, everything else as its UTF-8.
    ///
    /// - Complexity: O(*m*) for the *m* bytes of `string`.
    mutating func writeJSONString(_ string: String, escapingSlashes: Bool) {
        writeStaticString("\"")
        var string = string
        string.withUTF8 { utf8 in
            // Runs of bytes that need no escape are copied whole.
            var start = 0
            for (offset, byte) in utf8.enumerated()
            where byte < 0x20 || byte == 0x22 || byte == 0x5C || (byte == 0x2F && escapingSlashes) {
                writeBytes(UnsafeBufferPointer(rebasing: utf8[start..<offset]))
                writeJSONEscape(of: byte)
                start = offset + 1
            }
            writeBytes(UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        writeStaticString("\"")
    }

    /// The escape `JSONEncoder` writes for `byte`, a control character, a quote, a backslash or a slash.
    private mutating func writeJSONEscape(of byte: UInt8) {
        switch byte {
        case 0x22: writeStaticString("\\\"")
        case 0x5C: writeStaticString("\\\\")
        case 0x2F: writeStaticString("\\/")
        case 0x08: writeStaticString("\\b")
        case 0x09: writeStaticString("\\t")
        case 0x0A: writeStaticString("\\n")
        case 0x0C: writeStaticString("\\f")
        case 0x0D: writeStaticString("\\r")
        default:
            let digits: StaticString = "0123456789abcdef"
            writeStaticString("\\u00")
            writeInteger(digits.utf8Start[Int(byte >> 4)])
            writeInteger(digits.utf8Start[Int(byte & 0x0F)])
        }
    }

    /// Writes an integer in decimal, as `JSONEncoder` writes it.
    ///
    /// - Complexity: O(1): at most 20 digits and a sign.
    mutating func writeJSONInteger<Integer: FixedWidthInteger>(_ value: Integer) {
        // Digits from the last, into 20 bytes of the stack: no string is made.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
            var magnitude = value.magnitude
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            writeBytes(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Writes a finite floating-point number as `JSONEncoder` writes it: its shortest description, without a
    /// trailing `.0`.
    ///
    /// - Complexity: O(1).
    mutating func writeJSONNumber<Number: BinaryFloatingPoint & CustomStringConvertible>(_ value: Number) {
        let description = value.description
        if description.hasSuffix(".0") {
            writeSubstring(description.dropLast(2))
        } else {
            writeString(description)
        }
    }
}
