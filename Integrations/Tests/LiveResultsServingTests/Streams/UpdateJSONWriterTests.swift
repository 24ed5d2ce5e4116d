import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTesting
import NIOCore
import Testing

/// `_UpdateJSONWriter` against `JSONEncoder`, the reference: the same bytes for every update, but for the order of
/// an object's keys, which `JSONEncoder` does not fix (without `.sortedKeys` it writes them in its dictionary's
/// order, which the process's hash seed changes from run to run).
@Suite struct UpdateJSONWriterTests {
    /// An entity with what JSON writes differently: escapes, unicode, floats, integers at their limits,
    /// optionals left out, nested values, dates by the encoder's strategy.
    struct Sample: FetchableEntity, Codable {
        var id: Int64
        var title: String
        var score: Double
        var count: Int
        var big: UInt64
        var small: Int8
        var done: Bool
        var note: String?
        var tags: [String]
        var at: Date
    }

    typealias Update = ResultsUpdate<Sample>

    /// The encoders the writer serves, each also encoding the entities.
    static let encoders: [(name: String, make: @Sendable () -> JSONEncoder)] = [
        ("default", { JSONEncoder() }),
        (
            "without escaping slashes, dates in ISO 8601",
            {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .withoutEscapingSlashes
                encoder.dateEncodingStrategy = .iso8601
                return encoder
            }
        ),
    ]

    @Test(arguments: 0..<encoders.count)
    func randomUpdatesAsTheEncoderWritesThem(encoderIndex: Int) async throws {
        let (name, make) = Self.encoders[encoderIndex]
        let encoder = make()
        let writer = try #require(_UpdateJSONWriter<Sample>(encoder: encoder))
        for seed in UInt64(0)..<2_000 {
            // Now and then the pool's thread goes to the other tests, which run in parallel: a loop that kept both
            // of the pool's threads (two cores) starved their timers.
            if seed % 50 == 0 { await Task.yield() }
            var random = SeededRandom(seed: seed)
            let update = Self.update(using: &random)
            let expected = Array(try encoder.encode(update))
            var buffer = ByteBuffer()
            try writer.write(update, into: &buffer)
            let written = Array(buffer.readableBytesView)
            guard try JSONTokens(written) == JSONTokens(expected) else {
                Issue.record(
                    """
                    encoder \(name), seed \(seed): the writer wrote
                    \(String(decoding: written, as: UTF8.self))
                    where JSONEncoder wrote
                    \(String(decoding: expected, as: UTF8.self))
                    """)
                return
            }
        }
    }

    @Test func everyASCIICharacterAndSomeUnicodeInASectionName() throws {
        let names =
            (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
            + ["\u{80}", "é", "\u{2028}", "\u{2029}", "\u{FEFF}", "😀", "a\u{0}b/c\\d\"e", ""]
        for (make, escapesSlashes) in [(Self.encoders[0].make, true), (Self.encoders[1].make, false)] {
            let encoder = make()
            let writer = try #require(_UpdateJSONWriter<Sample>(encoder: encoder))
            for name in names {
                let update = Update(
                    version: Self.version(1),
                    content: .changes(
                        base: Self.version(0),
                        .init(insertedSections: [.init(index: 0, name: name)])))
                var buffer = ByteBuffer()
                try writer.write(update, into: &buffer)
                #expect(
                    try JSONTokens(Array(buffer.readableBytesView)) == JSONTokens(Array(try encoder.encode(update))),
                    "name \(Array(name.unicodeScalars)), escaping slashes: \(escapesSlashes)")
            }
        }
    }

    @Test func encodersWhoseOptionsChangeTheEnvelopeHaveNoWriter() {
        let pretty = JSONEncoder()
        pretty.outputFormatting = .prettyPrinted
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let snakeCase = JSONEncoder()
        snakeCase.keyEncodingStrategy = .convertToSnakeCase
        for encoder in [pretty, sorted, snakeCase] {
            #expect(_UpdateJSONWriter<Sample>(encoder: encoder) == nil)
        }
    }

    @Test func theUpdateEncoderWritesWhatJSONEncoderWritesWithAnyOptions() throws {
        var random = SeededRandom(seed: 7)
        for formatting in [JSONEncoder.OutputFormatting(), .sortedKeys, .prettyPrinted, .withoutEscapingSlashes] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = formatting
            let updates = _UpdateEncoder<Sample>(encoder: encoder)
            for step in 0..<50 {
                let update = Self.update(using: &random)
                let written = Array(try updates.json(update).readableBytesView)
                let expected = Array(try encoder.encode(update))
                // Sorted keys fix the order: every byte is the encoder's.
                #expect(
                    formatting.contains(.sortedKeys)
                        ? written == expected : try JSONTokens(written) == JSONTokens(expected),
                    "formatting \(formatting.rawValue), step \(step)")
            }
        }
    }

    // MARK: Random updates

    static func version(_ sequence: UInt64) -> ResultsVersion {
        ResultsVersion("00000000000000ab-\(sequence)")!
    }

    /// The whole results or a change set, with random lists (often empty), names and entities.
    static func update(using random: inout SeededRandom) -> Update {
        let version = ResultsVersion(
            String(format: "%016llx", UInt64.random(in: 0...UInt64.max, using: &random)) + "-"
                + String(UInt64.random(in: 0...UInt64.max, using: &random)))!
        func count(_ limit: Int) -> Int { Bool.random(using: &random) ? 0 : Int.random(in: 1...limit, using: &random) }
        func indexPath() -> IndexPath {
            IndexPath(
                item: Int.random(in: 0...(Bool.random(using: &random) ? 9 : Int.max), using: &random),
                section: Int.random(in: 0...3, using: &random))
        }
        func item() -> Update.Item { Update.Item(indexPath: indexPath(), entity: entity(using: &random)) }
        if Int.random(in: 0..<4, using: &random) == 0 {
            let sections = (0..<count(3)).map { _ in
                Update.Section(
                    name: string(using: &random), entities: (0..<count(4)).map { _ in entity(using: &random) })
            }
            return Update(version: version, content: .results(sections))
        }
        let changes = Update.Changes(
            deletedSections: (0..<count(3)).map { _ in Int.random(in: 0...Int.max, using: &random) },
            insertedSections: (0..<count(3)).map { _ in
                Update.InsertedSection(index: Int.random(in: 0...9, using: &random), name: string(using: &random))
            },
            deletedItems: (0..<count(4)).map { _ in indexPath() },
            insertedItems: (0..<count(3)).map { _ in item() },
            movedItems: (0..<count(3)).map { _ in ItemMove(from: indexPath(), to: indexPath()) },
            updatedItems: (0..<count(3)).map { _ in item() })
        return Update(version: version, content: .changes(base: Self.version(UInt64(count(9))), changes))
    }

    static func entity(using random: inout SeededRandom) -> Sample {
        let doubles: [Double] = [
            0.1, 1e300, -0.0, 0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1 / 3,
            100, 1e-7,
            123_456_789.125, 2.2250738585072014e-308, .random(in: -1e6...1e6, using: &random),
        ]
        let ids: [Int64] = [.min, .max, 0, .random(in: .min ... .max, using: &random)]
        let counts: [Int] = [.min, .max, 0, -1, .random(in: .min ... .max, using: &random)]
        let bigs: [UInt64] = [.max, 0, .random(in: 0 ... .max, using: &random)]
        let smalls: [Int8] = [.min, .max, -1]
        let tagCount = Int.random(in: 0...2, using: &random)
        return Sample(
            id: ids.randomElement(using: &random)!,
            title: string(using: &random),
            score: doubles.randomElement(using: &random)!,
            count: counts.randomElement(using: &random)!,
            big: bigs.randomElement(using: &random)!,
            small: smalls.randomElement(using: &random)!,
            done: Bool.random(using: &random),
            note: Bool.random(using: &random) ? nil : string(using: &random),
            tags: (0..<tagCount).map { _ in string(using: &random) },
            at: Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &random))))
    }

    /// A string of escapes, control characters, slashes, ASCII and unicode of every length in UTF-8.
    static func string(using random: inout SeededRandom) -> String {
        let pieces = [
            "a", "Z", " ", "/", "\\", "\"", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "é",
            "€", "😀", "\u{2028}", "\u{FEFF}", "</script>", "0.1", "null",
        ]
        return (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
            .joined()
    }

    /// A JSON text as its tokens: each string and number as its bytes (escapes and digits as written), objects
    /// as their keys' bytes to values, whatever their order; whitespace between tokens is left out.
    indirect enum JSONTokens: Equatable {
        case scalar([UInt8])
        case array([JSONTokens])
        case object([[UInt8]: JSONTokens])

        struct Malformed: Error {
            var offset: Int
        }

        init(_ bytes: [UInt8]) throws {
            var offset = 0
            self = try Self.value(bytes, &offset)
            Self.skipWhitespace(bytes, &offset)
            guard offset == bytes.count else { throw Malformed(offset: offset) }
        }

        static func skipWhitespace(_ bytes: [UInt8], _ offset: inout Int) {
            while offset < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[offset]) { offset += 1 }
        }

        static func value(_ bytes: [UInt8], _ offset: inout Int) throws -> JSONTokens {
            skipWhitespace(bytes, &offset)
            guard offset < bytes.count else { throw Malformed(offset: offset) }
            switch bytes[offset] {
            case UInt8(ascii: "["):
                offset += 1
                var elements: [JSONTokens] = []
                while try !closes(UInt8(ascii: "]"), bytes, &offset, first: elements.isEmpty) {
                    elements.append(try value(bytes, &offset))
                }
                return .array(elements)
            case UInt8(ascii: "{"):
                offset += 1
                var members: [[UInt8]: JSONTokens] = [:]
                while try !closes(UInt8(ascii: "}"), bytes, &offset, first: members.isEmpty) {
                    guard case .scalar(let key) = try value(bytes, &offset) else { throw Malformed(offset: offset) }
                    skipWhitespace(bytes, &offset)
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
                        throw Malformed(offset: offset)
                    }
                    offset += 1
                    guard members.updateValue(try value(bytes, &offset), forKey: key) == nil else {
                        throw Malformed(offset: offset)
                    }
                }
                return .object(members)
            case UInt8(ascii: "\""):
                let start = offset
                offset += 1
                while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
                    offset += bytes[offset] == UInt8(ascii: "\\") ? 2 : 1
                }
                offset += 1
                guard offset <= bytes.count else { throw Malformed(offset: start) }
                return .scalar(Array(bytes[start..<offset]))
            default:
                let start = offset
                while offset < bytes.count, !Array(",]} \n\r\t".utf8).contains(bytes[offset]) { offset += 1 }
                guard offset > start else { throw Malformed(offset: start) }
                return .scalar(Array(bytes[start..<offset]))
            }
        }

        /// Whether the list ends here (and steps over its end); otherwise steps over the comma before the next
        /// element, if it is not the first.
        static func closes(_ end: UInt8, _ bytes: [UInt8], _ offset: inout Int, first: Bool) throws -> Bool {
            skipWhitespace(bytes, &offset)
            guard offset < bytes.count else { throw Malformed(offset: offset) }
            if bytes[offset] == end {
                offset += 1
                return true
            }
            if !first {
                guard bytes[offset] == UInt8(ascii: ",") else { throw Malformed(offset: offset) }
                offset += 1
            }
            return false
        }
    }
}
