import Foundation
import LiveResults
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat

/// Encodes updates once for all the streams of an endpoint: their JSON and their Server-Sent Event, in one buffer
/// that every stream writes (a `ByteBuffer` is copy-on-write, and a write only reads it).
///
/// The clients of one controller mostly receive the same updates at the same moment; an update is named by
/// its base and version (two updates between the same versions describe the same change), so the last
/// few encodings are kept and shared, and a stream that asks for an update being encoded for another waits for
/// that encoding rather than making its own.
///
/// An update is written by ``_UpdateJSONWriter``, at the cost of its bytes and its entities' encoding, unless
/// the encoder's options change more than the entities (pretty printing, sorted keys, a key strategy): then
/// `JSONEncoder` encodes it whole.
package final class _UpdateEncoder<Entity: FetchableEntity & Codable>: Sendable {
    private struct Key: Hashable {
        var base: ResultsVersion?
        var version: ResultsVersion

        init(_ update: ResultsUpdate<Entity>) {
            base = update.base
            version = update.version
        }

        init(base: ResultsVersion?, version: ResultsVersion) {
            self.base = base
            self.version = version
        }
    }

    /// One update, encoded: its Server-Sent Event (`id:` the version, `data:` the JSON, a blank line), and where its
    /// JSON lies in it.
    package struct Encoded: Sendable {
        /// The whole event.
        package let frame: ByteBuffer
        private let jsonStart: Int
        private let jsonLength: Int

        init(frame: ByteBuffer, json: Range<Int>) {
            self.frame = frame
            jsonStart = json.lowerBound
            jsonLength = json.count
        }

        /// The update's JSON alone: one line, no newline (a slice of the event: no copy).
        package var json: ByteBuffer { frame.getSlice(at: jsonStart, length: jsonLength)! }
    }

    private struct State {
        var recent: [(key: Key, encoded: Encoded)] = []
        /// The encodings under way, and the callers waiting for each.
        var inFlight: [Key: [UnsafeContinuation<Encoded, any Error>]] = [:]
        var encodings = 0

        func cached(_ key: Key) -> Encoded? { recent.first { $0.key == key }?.encoded }
    }

    private let encoder: JSONEncoder
    private let writer: _UpdateJSONWriter<Entity>?
    private let state = NIOLockedValueBox(State())
    /// How many of the last encodings are kept: a few for one controller's streams, more for the many
    /// queries of a live-queries route, whose updates arrive together.
    private let keptEncodings: Int

    package init(encoder: JSONEncoder, keeping keptEncodings: Int = 8) {
        self.encoder = encoder
        self.writer = _UpdateJSONWriter(encoder: encoder)
        self.keptEncodings = keptEncodings
    }

    /// How many updates were encoded: each once, however many streams send it.
    package var encodings: Int { state.withLockedValue { $0.encodings } }

    /// How many callers wait now for an encoding another one is making.
    package var waitingCount: Int { state.withLockedValue { $0.inFlight.values.reduce(0) { $0 + $1.count } } }

    /// The JSON already encoded for the update from `base` to `version`, if it is among the last few.
    func cachedJSON(base: ResultsVersion?, version: ResultsVersion) -> ByteBuffer? {
        state.withLockedValue { $0.cached(Key(base: base, version: version)) }?.json
    }

    /// Where an update's encoding is.
    private enum Lookup {
        case cached(Encoded)
        /// Another caller encodes it (and, for a caller that waits, will hand it over).
        case underWay
        /// This caller encodes it, for the others too.
        case mine
    }

    /// `update`, encoded: the last few encodings' if it is among them, the one under way for another stream if
    /// there is one (waited for), else this caller's, kept for the others.
    package func encoded(_ update: ResultsUpdate<Entity>) async throws -> Encoded {
        let key = Key(update)
        if let encoded = state.withLockedValue({ $0.cached(key) }) { return encoded }
        return try await withUnsafeThrowingContinuation { continuation in
            // Looked up again and, when another caller encodes it, waited for, under one hold of the lock: an
            // encoding that ends between the two would not find this caller.
            switch lookUp(key, waiter: continuation) {
            case .cached(let encoded): continuation.resume(returning: encoded)
            case .underWay: break
            case .mine: continuation.resume(with: Result { try self.encodeAndShare(update, key) })
            }
        }
    }

    /// `update`, encoded, without waiting: for a caller that cannot (a whole results response, encoded on a queue
    /// of its own); it makes its own encoding when another caller's is under way.
    package func encodedNow(_ update: ResultsUpdate<Entity>) throws -> Encoded {
        let key = Key(update)
        switch lookUp(key, waiter: nil) {
        case .cached(let encoded): return encoded
        case .underWay: return try encode(update)
        case .mine: return try encodeAndShare(update, key)
        }
    }

    /// Where the encoding of `key` is; when it is under way, `waiter` (if any) waits for it, and when it is nowhere,
    /// it is marked under way for this caller.
    private func lookUp(_ key: Key, waiter: UnsafeContinuation<Encoded, any Error>?) -> Lookup {
        state.withLockedValue { state in
            if let encoded = state.cached(key) { return .cached(encoded) }
            guard state.inFlight[key] == nil else {
                if let waiter { state.inFlight[key]!.append(waiter) }
                return .underWay
            }
            state.inFlight[key] = []
            return .mine
        }
    }

    /// The JSON of `update`: one line, no newline.
    package func json(_ update: ResultsUpdate<Entity>) throws -> ByteBuffer {
        try encodedNow(update).json
    }

    /// Encodes `update`, whose encoding this caller took on, keeps it, and hands it (or its error) to the callers
    /// that waited for it.
    private func encodeAndShare(_ update: ResultsUpdate<Entity>, _ key: Key) throws -> Encoded {
        let result = Result { try encode(update) }
        let waiters = state.withLockedValue { state in
            if case .success(let encoded) = result {
                state.recent.insert((key, encoded), at: 0)
                if state.recent.count > keptEncodings { state.recent.removeLast() }
            }
            return state.inFlight.removeValue(forKey: key) ?? []
        }
        for waiter in waiters { waiter.resume(with: result) }
        return try result.get()
    }

    /// The Server-Sent Event of `update`, its JSON written in place.
    private func encode(_ update: ResultsUpdate<Entity>) throws -> Encoded {
        state.withLockedValue { $0.encodings += 1 }
        // Room for a small change set's envelope; the buffer doubles for more.
        var buffer = ByteBufferAllocator().buffer(capacity: 512)
        buffer.writeString("id: \(update.version)\ndata: ")
        let start = buffer.writerIndex
        if let writer {
            try writer.write(update, into: &buffer)
        } else {
            buffer.writeData(try encoder.encode(update))
        }
        let json = start..<buffer.writerIndex
        buffer.writeString("\n\n")
        return Encoded(frame: buffer, json: json)
    }
}
