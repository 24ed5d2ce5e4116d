import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// The update encoder shared by the streams of an endpoint: an update is encoded once however many streams send it,
/// even when they all ask for it while it is being encoded, and its Server-Sent Event is one buffer they all write.
@Suite("Update encoder", .timeLimit(.minutes(1)))
struct UpdateEncoderTests {
    /// An entity whose encoding waits at a gate the test opens, and counts how often it started.
    struct Gated: FetchableEntity, Codable {
        static let started = NIOLockedValueBox(0)
        /// 1 once the test opens it.
        static let gate = ConditionLock(value: 0)

        var id: Int

        func encode(to encoder: any Encoder) throws {
            Self.started.withLockedValue { $0 += 1 }
            // Bounded: a test that never opens the gate fails rather than hangs.
            if Self.gate.lock(whenValue: 1, timeoutSeconds: 10) { Self.gate.unlock() }
            var container = encoder.singleValueContainer()
            try container.encode(id)
        }
    }

    static func version(_ sequence: UInt64) -> ResultsVersion { ResultsVersion("00000000000000ab-\(sequence)")! }

    @Test("N streams that ask for one update while it is encoded wait for that encoding: one encoding, one buffer")
    func concurrentMisses() async throws {
        let streams = 8
        let encoder = _UpdateEncoder<Gated>(encoder: JSONEncoder())
        let update = ResultsUpdate<Gated>(
            version: Self.version(2),
            content: .changes(
                base: Self.version(1),
                .init(
                    deletedSections: [], insertedSections: [], deletedItems: [],
                    insertedItems: [.init(indexPath: IndexPath(item: 0, section: 0), entity: Gated(id: 7))],
                    movedItems: [], updatedItems: [])))
        let first = Task { try await encoder.encoded(update) }
        // The first stream is inside the entity's encoding; the others ask meanwhile.
        #expect(await eventually { Gated.started.withLockedValue { $0 } == 1 })
        let others = (1..<streams).map { _ in Task { try await encoder.encoded(update) } }
        #expect(await eventually { encoder.waitingCount == streams - 1 })
        Gated.gate.lock()
        Gated.gate.unlock(withValue: 1)
        var frames = [try await first.value.frame]
        for other in others { frames.append(try await other.value.frame) }
        #expect(encoder.encodings == 1)
        #expect(Gated.started.withLockedValue { $0 } == 1)
        let text = String(buffer: frames[0])
        #expect(text.hasPrefix("id: \(Self.version(2))\ndata: {"))
        #expect(text.hasSuffix("}\n\n"))
        // One buffer: every stream's frame is the first one's storage, not a copy.
        let storage = frames[0].withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        #expect(frames.allSatisfy { $0.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } == storage })
        // The JSON alone is a slice of it, and what a later stream gets comes from the kept encodings.
        let json = try encoder.json(update)
        #expect(text == "id: \(Self.version(2))\ndata: \(String(buffer: json))\n\n")
        _ = try await encoder.encoded(update)
        #expect(encoder.encodings == 1)
        #expect(encoder.waitingCount == 0)
    }
}
