/// Percent-encoding of path segments, query items and form fields.
enum _PercentEncoding {
    /// `text` with every byte but RFC 3986's unreserved letters, digits, `-`, `_` and `~` percent-encoded
    /// (its `.` too, so that no value reads as a `.` or `..` segment).
    ///
    /// - Complexity: O(*n*) for *n* UTF-8 bytes.
    static func encode(_ text: some StringProtocol) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + hex(byte >> 4) + hex(byte & 0xF)
            }
        }
        return result
    }

    /// `text` with its `%XX` sequences decoded, and `+` as a space when `plusIsSpace` (forms); `nil` when
    /// the bytes are not UTF-8.
    static func decode(_ text: some StringProtocol, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else if byte == UInt8(ascii: "+") && plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ nibble: UInt8) -> String {
        String(nibble, radix: 16, uppercase: true)
    }
}
