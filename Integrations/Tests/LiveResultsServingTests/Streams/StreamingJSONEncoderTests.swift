import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTesting
import NIOCore
import Testing

/// `_StreamingJSONEncoder` against `JSONEncoder`, the reference: the same tokens for every value it writes (keys
/// in any order), and `false` with the buffer untouched for every value it leaves to `JSONEncoder`.
@Suite struct StreamingJSONEncoderTests {
    typealias Sample = UpdateJSONWriterTests.Sample
    typealias JSONTokens = UpdateJSONWriterTests.JSONTokens

    /// What `encoder` makes of `value`, and what the streaming encoder writes after a prefix it must keep.
    static func both<Value: Encodable>(
        _ value: Value, _ encoder: JSONEncoder
    ) throws -> (expected: [UInt8], written: [UInt8]?) {
        let streaming = try #require(_StreamingJSONEncoder(writingAs: encoder))
        var buffer = ByteBuffer(string: "prefix")
        let wrote = streaming.write(value, into: &buffer)
        let bytes = Array(buffer.readableBytesView)
        #expect(bytes.starts(with: Array("prefix".utf8)), "the bytes before the value were changed")
        if !wrote { #expect(bytes == Array("prefix".utf8), "a value left to JSONEncoder left bytes behind") }
        return (Array(try encoder.encode(value)), wrote ? Array(bytes.dropFirst(6)) : nil)
    }

    @Test(arguments: ["default", "without escaping slashes", "seconds", "milliseconds"])
    func randomEntitiesAsJSONEncoderWritesThem(setUp: String) async throws {
        let encoder = JSONEncoder()
        switch setUp {
        case "without escaping slashes": encoder.outputFormatting = .withoutEscapingSlashes
        case "seconds": encoder.dateEncodingStrategy = .secondsSince1970
        case "milliseconds": encoder.dateEncodingStrategy = .millisecondsSince1970
        default: break
        }
        for seed in UInt64(0)..<1_000 {
            // Now and then the pool's thread goes to the other tests: the suites run in parallel on two cores, and
            // a loop that kept both of the pool's threads starved their timers (a 1 s timeout fired after 6).
            if seed % 50 == 0 { await Task.yield() }
            var random = SeededRandom(seed: seed)
            let entity = UpdateJSONWriterTests.entity(using: &random)
            let (expected, written) = try Self.both(entity, encoder)
            let bytes = try #require(written, "\(setUp), seed \(seed): left to JSONEncoder")
            guard try JSONTokens(bytes) == JSONTokens(expected) else {
                Issue.record(
                    """
                    \(setUp), seed \(seed): wrote \(String(decoding: bytes, as: UTF8.self))
                    where JSONEncoder wrote \(String(decoding: expected, as: UTF8.self))
                    """)
                return
            }
        }
    }

    /// Every number byte for byte: floats of every magnitude, integers at their limits.
    @Test func numbersByteForByte() async throws {
        var random = SeededRandom(seed: 11)
        let encoder = JSONEncoder()
        for step in 0..<1_500 {
            if step % 50 == 0 { await Task.yield() }  // As above.
            let double = Double(
                sign: Bool.random(using: &random) ? .plus : .minus,
                exponent: Int.random(in: -1_070...1_020, using: &random),
                significand: Double.random(in: 1..<2, using: &random))
            let whole = Double(Int.random(in: -1_000_000...1_000_000, using: &random))
            let float = Float(double)
            let numbers: [Double] = [double, whole, Double(float.isFinite ? float : 0), 0.1 * whole]
            for number in numbers {
                let (expected, written) = try Self.both([number], encoder)
                #expect(written == expected, "step \(step): \(number)")
            }
            if float.isFinite {
                let (expected, written) = try Self.both([float], encoder)
                #expect(written == expected, "step \(step): the float \(float)")
            }
        }
        let integers: [Int64] = [.min, .max, 0, -1, 9, 10, -10, 1_000_000_007]
        let (expected, written) = try Self.both(integers, encoder)
        #expect(written == expected)
        let (unsignedExpected, unsignedWritten) = try Self.both([UInt64.max, 0], encoder)
        #expect(unsignedWritten == unsignedExpected)
    }

    /// The types `JSONEncoder` writes its own way, at the top level, in an object and in an array.
    @Test func specialTypes() throws {
        struct Special: Codable {
            var url = URL(string: "https://example.com/a?b=c&d=%20")!
            var data = Data([0, 1, 2, 250, 251, 252, 253])
            var decimal = Decimal(string: "12345.678901234567890123")!
            var negative = Decimal(string: "-0.001")!
            var urls = [URL(string: "file:///tmp/x")!]
            var date = Date(timeIntervalSince1970: 1_700_000_000.25)
            var nothing: Int? = nil
            var nested: [String: [Int?]] = ["a": [1, nil], "b/c": []]
        }
        for strategy in [JSONEncoder.DateEncodingStrategy.deferredToDate, .secondsSince1970, .millisecondsSince1970] {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = strategy
            let (expected, written) = try Self.both(Special(), encoder)
            let bytes = try #require(written)
            #expect(
                try JSONTokens(bytes) == JSONTokens(expected),
                "wrote \(String(decoding: bytes, as: UTF8.self)), JSONEncoder \(String(decoding: expected, as: UTF8.self))"
            )
        }
    }

    /// A value that reads its coding path gets the one `JSONEncoder` gives it.
    @Test func codingPaths() throws {
        final class Paths: @unchecked Sendable {  // Written by one test's encodes only.
            var seen: [String] = []
        }
        struct Reader: Encodable {
            let paths: Paths
            func encode(to encoder: any Encoder) throws {
                paths.seen.append(encoder.codingPath.map(\.stringValue).joined(separator: "."))
                var container = encoder.singleValueContainer()
                try container.encode(1)
            }
        }
        struct Outer: Encodable {
            let paths: Paths
            func encode(to encoder: any Encoder) throws {
                enum Keys: String, CodingKey { case a, b }
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(Reader(paths: paths), forKey: .a)
                try container.encode([Reader(paths: paths), Reader(paths: paths)], forKey: .b)
            }
        }
        let reference = Paths()
        let streamed = Paths()
        _ = try JSONEncoder().encode([Outer(paths: reference)])
        var buffer = ByteBuffer()
        #expect(
            try #require(_StreamingJSONEncoder(writingAs: JSONEncoder())).write([Outer(paths: streamed)], into: &buffer)
        )
        #expect(streamed.seen == reference.seen)
        #expect(streamed.seen.count == 3)
    }

    /// What is left to `JSONEncoder`: each value is refused, the buffer kept as it was, and `JSONEncoder` answers
    /// (or throws) as it always did.
    @Test func valuesLeftToJSONEncoder() throws {
        enum Keys: String, CodingKey { case a, b }
        struct NestedByName: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .a)
                try container.encode(1, forKey: .b)
                try nested.encode(2, forKey: .b)
            }
        }
        struct SuperEncoder: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try 1.encode(to: container.superEncoder())
            }
        }
        struct Nothing: Encodable {
            func encode(to _: any Encoder) throws {}
        }
        struct TwoContainers: Encodable {
            func encode(to encoder: any Encoder) throws {
                var first = encoder.container(keyedBy: Keys.self)
                try first.encode(1, forKey: .a)
                var second = encoder.container(keyedBy: Keys.self)
                try second.encode(2, forKey: .b)
            }
        }
        struct Failing: Encodable {
            struct Refused: Error {}
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .a)
                throw Refused()
            }
        }
        let iso = JSONEncoder()
        iso.dateEncodingStrategy = .iso8601
        let writes: [(String, JSONEncoder, (inout ByteBuffer, _StreamingJSONEncoder) -> Bool)] = [
            ("a nested container by name", JSONEncoder(), { $1.write([NestedByName()], into: &$0) }),
            ("a super encoder", JSONEncoder(), { $1.write(SuperEncoder(), into: &$0) }),
            ("nothing encoded", JSONEncoder(), { $1.write([Nothing()], into: &$0) }),
            ("two containers", JSONEncoder(), { $1.write(TwoContainers(), into: &$0) }),
            ("a thrown error", JSONEncoder(), { $1.write([Failing()], into: &$0) }),
            ("infinity", JSONEncoder(), { $1.write(["a": Double.infinity], into: &$0) }),
            ("not a number", JSONEncoder(), { $1.write([Float.nan], into: &$0) }),
            ("a date in ISO 8601", iso, { $1.write([Date()], into: &$0) }),
        ]
        for (name, encoder, write) in writes {
            let streaming = try #require(_StreamingJSONEncoder(writingAs: encoder))
            var buffer = ByteBuffer(string: "kept")
            #expect(!write(&buffer, streaming), "\(name) was written")
            #expect(String(buffer: buffer) == "kept", "\(name) left bytes behind")
        }
    }

    @Test func encodersWhoseOptionsChangeMoreThanValuesHaveNone() {
        let pretty = JSONEncoder()
        pretty.outputFormatting = .prettyPrinted
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        let snakeCase = JSONEncoder()
        snakeCase.keyEncodingStrategy = .convertToSnakeCase
        for encoder in [pretty, sorted, snakeCase] {
            #expect(_StreamingJSONEncoder(writingAs: encoder) == nil)
        }
    }
}
