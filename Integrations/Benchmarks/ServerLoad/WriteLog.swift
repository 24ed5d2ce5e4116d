import Foundation
import NIOConcurrencyHelpers

/// The title that stamps write `sequence`.
func title(_ sequence: Int) -> String { "w\(sequence)" }

/// The sequence number a title stamps, if a write's.
func stampedSequence(in title: String) -> Int? {
    let utf8 = title.utf8
    guard utf8.count > 1, utf8.first == UInt8(ascii: "w") else { return nil }
    var value = 0
    for byte in utf8.dropFirst() {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}

/// Every write of a run: what, on which row, when sent, and how the server answered.
final class WriteLog: Sendable {
    struct State {
        var kinds: [WriteKind?]
        var ids: [Int64]
        var sent: [UInt64]
        var answered: [UInt64]
        var statuses: [Int]
        /// The write that deletes each deleted row.
        var deletions: [Int64: Int] = [:]
        /// The rows that exist (as far as the writers know), to pick from.
        var live: [Int64]
    }

    let count: Int
    private let state: NIOLockedValueBox<State>

    init(count: Int, rows: [Int64]) {
        self.count = count
        state = NIOLockedValueBox(
            State(
                kinds: Array(repeating: nil, count: count), ids: Array(repeating: 0, count: count),
                sent: Array(repeating: 0, count: count), answered: Array(repeating: 0, count: count),
                statuses: Array(repeating: 0, count: count), live: rows))
    }

    /// Picks the row of write `sequence` (none for a POST), and stamps its send time.
    func send(_ sequence: Int, _ kind: WriteKind) -> Int64? {
        state.withLockedValue { state in
            state.kinds[sequence] = kind
            var id: Int64?
            switch kind {
            case .create: break
            case .delete:
                if !state.live.isEmpty {
                    state.live.swapAt(Int.random(in: 0..<state.live.count), state.live.count - 1)
                    let deleted = state.live.removeLast()
                    state.deletions[deleted] = sequence
                    id = deleted
                }
            default: id = state.live.randomElement()
            }
            state.ids[sequence] = id ?? 0
            state.sent[sequence] = now()
            return id
        }
    }

    func answer(_ sequence: Int, status: Int, created: Int64?) {
        let time = now()
        state.withLockedValue { state in
            state.answered[sequence] = time
            state.statuses[sequence] = status
            if let created {
                state.ids[sequence] = created
                state.live.append(created)
            }
        }
    }

    func deletion(of id: Int64) -> Int? { state.withLockedValue { $0.deletions[id] } }

    func kind(of sequence: Int) -> WriteKind? {
        state.withLockedValue { sequence < $0.kinds.count ? $0.kinds[sequence] : nil }
    }

    var snapshot: State { state.withLockedValue { $0 } }
}
