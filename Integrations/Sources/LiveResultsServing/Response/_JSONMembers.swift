import Foundation

/// The members of a JSON object as `JSONEncoder` writes it (compact, valid): each key, decoded, with its
/// value's bytes as they are.
enum _JSONMembers {
    static func of(_ json: Data) -> [(key: String, value: Data)] {
        let bytes = [UInt8](json)
        var members: [(key: String, value: Data)] = []
        var index = 0
        func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }
        /// The end of the string starting at `index` (its opening quote), past its closing quote.
        func stringEnd(_ start: Int) -> Int {
            var position = start + 1
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
            }
            return position + 1
        }
        /// The end of the value starting at `index`.
        func valueEnd(_ start: Int) -> Int {
            var position = start
            var depth = 0
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""):
                    position = stringEnd(position)
                    if depth == 0 { return position }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return position }
                    depth -= 1
                    if depth == 0 { return position + 1 }
                case UInt8(ascii: ","):
                    if depth == 0 { return position }
                default:
                    break
                }
                position += 1
            }
            return position
        }
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return [] }
        index += 1
        while index < bytes.count {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { break }
            let keyEnd = stringEnd(index)
            let keyJSON = Data(bytes[index..<keyEnd])
            let key = (try? JSONDecoder().decode(String.self, from: keyJSON)) ?? ""
            index = keyEnd
            skipSpace()
            index += 1  // the colon
            skipSpace()
            let end = valueEnd(index)
            var valueBytes = bytes[index..<end]
            while let last = valueBytes.last, [0x20, 0x0A, 0x0D, 0x09].contains(last) { valueBytes.removeLast() }
            members.append((key, Data(valueBytes)))
            index = end
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1 }
        }
        return members
    }
}
