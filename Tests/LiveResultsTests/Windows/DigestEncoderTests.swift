import Foundation
import LiveResultsTesting
import Testing

@testable import LiveResults

/// The digests that name a window's contents (`_ContentDigest.of`, through `_DigestEncoder`): the same for the
/// same contents in every process, different when any field differs.
@Suite struct DigestEncoderTests {
    struct Sample: Codable, Equatable {
        var id: Int64
        var title: String
        var score: Double
        var flag: Bool
        var note: String?
        var tags: [String]
        var counts: [String: Int]
        var nested: Inner?
        var at: Date

        struct Inner: Codable, Equatable {
            var a: Int8
            var b: [UInt64?]
        }
    }

    static func sample(using random: inout SeededRandom) -> Sample {
        let pieces = ["", "a", "é", "😀", "\u{0}", "key", "Key"]
        func text() -> String {
            (0..<Int.random(in: 0...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        return Sample(
            id: Int64.random(in: -3...3, using: &random), title: text(),
            score: [0, -0.0, 0.1, 1, .infinity].randomElement(using: &random)!, flag: Bool.random(using: &random),
            note: Bool.random(using: &random) ? nil : text(),
            tags: (0..<Int.random(in: 0...2, using: &random)).map { _ in text() },
            counts: Dictionary(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in (text(), Int.random(in: 0...2, using: &random)) }
            ) { first, _ in first },
            nested: Bool.random(using: &random)
                ? nil
                : Sample.Inner(
                    a: Int8.random(in: -1...1, using: &random), b: [nil, UInt64.random(in: 0...1, using: &random)]),
            at: Date(timeIntervalSince1970: Double(Int.random(in: 0...2, using: &random))))
    }

    /// Equal values digest alike and different ones apart, over many small random values (so that most pairs
    /// differ in one field only).
    @Test func equalValuesAndOnlyThemDigestAlike() throws {
        var random = SeededRandom(seed: 3)
        var seen: [UInt64: Sample] = [:]
        for step in 0..<20_000 {
            let value = Self.sample(using: &random)
            let digest = try #require(_ContentDigest.of(value), "step \(step)")
            if let earlier = seen[digest] {
                guard earlier == value else {
                    Issue.record("step \(step): \(value) and \(earlier) have one digest")
                    return
                }
            }
            seen[digest] = value
        }
        #expect(seen.count > 5_000)
    }

    /// A dictionary's keys in another order (another hash seed, another process) give the same digest.
    @Test func theOrderOfADictionarysKeysDoesNotCount() throws {
        var forward: [String: Int] = [:]
        var backward: [String: Int] = [:]
        let keys = (0..<200).map { "key \($0)" }
        for (offset, key) in keys.enumerated() { forward[key] = offset }
        for (offset, key) in keys.enumerated().reversed() { backward[key] = offset }
        // Different capacities make different orders of iteration.
        backward.reserveCapacity(4_096)
        #expect(Array(forward.keys) != Array(backward.keys))
        #expect(_ContentDigest.of(forward) == _ContentDigest.of(backward))
        #expect(_ContentDigest.of(forward) != _ContentDigest.of(forward.merging(["key 0": -1]) { $1 }))
    }

    /// The digest of one value is fixed: every process, and every build, names these contents alike. (A change
    /// of the digest renames every version: clients of a process of the previous build then get whole results
    /// once. Change this constant only with an entry in the changelog saying so.)
    @Test func aValuesDigestIsFixed() throws {
        let value = Sample(
            id: 7, title: "Write the digest", score: 0.5, flag: true, note: nil, tags: ["a", "b"],
            counts: ["x": 1, "y": 2], nested: Sample.Inner(a: -1, b: [nil, 3]),
            at: Date(timeIntervalSinceReferenceDate: 10))
        #expect(_ContentDigest.of(value) == 16_546_490_357_365_562_515)
    }

    /// An encoding that throws, or that encodes two kinds of container, has no digest.
    @Test func valuesThatDoNotEncodeHaveNoDigest() {
        struct Throwing: Encodable {
            struct Refused: Error {}
            func encode(to _: any Encoder) throws { throw Refused() }
        }
        struct TwoKinds: Encodable {
            enum Keys: CodingKey { case a }
            func encode(to encoder: any Encoder) throws {
                var object = encoder.container(keyedBy: Keys.self)
                try object.encode(1, forKey: .a)
                var array = encoder.unkeyedContainer()
                try array.encode(2)
            }
        }
        #expect(_ContentDigest.of(Throwing()) == nil)
        #expect(_ContentDigest.of(TwoKinds()) == nil)
        #expect(_ContentDigest.of([Throwing()]) == nil)
    }

    /// A nested container asked for by name counts as the value it holds, written before or after its
    /// parent's other members.
    @Test func nestedContainersByName() {
        enum Keys: CodingKey { case a, b }
        struct ByName: Encodable {
            var late: Bool
            func encode(to encoder: any Encoder) throws {
                var object = encoder.container(keyedBy: Keys.self)
                var nested = object.nestedContainer(keyedBy: Keys.self, forKey: .a)
                if !late { try nested.encode(1, forKey: .b) }
                try object.encode(2, forKey: .b)
                if late { try nested.encode(1, forKey: .b) }
            }
        }
        struct Plain: Encodable {
            struct Inner: Encodable { var b = 1 }
            var a = Inner()
            var b = 2
        }
        #expect(_ContentDigest.of(ByName(late: false)) == _ContentDigest.of(ByName(late: true)))
        #expect(_ContentDigest.of(ByName(late: false)) == _ContentDigest.of(Plain()))
    }
}
