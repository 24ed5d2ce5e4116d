import Foundation
import LiveResults
import NIOCore
import NIOConcurrencyHelpers
import NIOFoundationCompat

/// Encodes updates to JSON once for all the streams of an endpoint.
///
/// The clients of one controller mostly receive the same updates at the same moment; an update is named by
/// its base and version (two updates between the same versions describe the same change), so the last
/// few encodings are kept and shared.
///
/// An update is written by ``_UpdateJSONWriter``, at the cost of its bytes and its entities' encoding, unless
/// the encoder's options change more than the entities (pretty printing, sorted keys, a key strategy): then
/// `JSONEncoder` encodes it whole.
package final class _UpdateEncoder<Entity: FetchableEntity & Codable>: Sendable {
    private struct Key: Hashable {
        var base: ResultsVersion?
        var version: ResultsVersion
    }

    private let encoder: JSONEncoder
    private let writer: _UpdateJSONWriter<Entity>?
    private let recent = NIOLockedValueBox<[(key: Key, json: ByteBuffer)]>([])
    /// How many of the last encodings are kept: a few for one controller's streams, more for the many
    /// queries of a live-queries route, whose updates arrive together.
    private let keptEncodings: Int

    package init(encoder: JSONEncoder, keeping keptEncodings: Int = 8) {
        self.encoder = encoder
        self.writer = _UpdateJSONWriter(encoder: encoder)
        self.keptEncodings = keptEncodings
    }

    /// The JSON already encoded for the update from `base` to `version`, if it is among the last few.
    func cachedJSON(base: ResultsVersion?, version: ResultsVersion) -> ByteBuffer? {
        let key = Key(base: base, version: version)
        return recent.withLockedValue { $0.first { $0.key == key }?.json }
    }

    /// The JSON of `update`: one line, no newline.
    package func json(_ update: ResultsUpdate<Entity>) throws -> ByteBuffer {
        if let json = cachedJSON(base: update.base, version: update.version) { return json }
        let key = Key(base: update.base, version: update.version)
        let json: ByteBuffer
        if let writer {
            // Room for a small change set's envelope; the buffer doubles for more.
            var buffer = ByteBufferAllocator().buffer(capacity: 512)
            try writer.write(update, into: &buffer)
            json = buffer
        } else {
            json = ByteBuffer(data: try encoder.encode(update))
        }
        recent.withLockedValue { recent in
            recent.insert((key, json), at: 0)
            if recent.count > keptEncodings { recent.removeLast() }
        }
        return json
    }
}
