// What encoding a Server-Sent Events update costs: the serving core's `_UpdateEncoder` (the envelope written by
// hand, each entity by the encoder) against `JSONEncoder` encoding the whole update, as the encoder did before.
// Single-threaded, release, the entity of the server example's `todos` table.
//
//   swift run -c release UpdateEncoding [--updates N]
//
// Each row: the best and the median of 7 rounds of N updates, in CPU nanoseconds per update, both halves
// alternating round by round; and the bytes (the same for both: the tests compare them).

import Foundation
import LiveResults
import LiveResultsServing
import NIOCore
import NIOFoundationCompat

struct Todo: FetchableEntity, Codable {
    var id: Int64
    var title: String
    var project: String
    var priority: Int
    var done: Bool
    var assignee_id: Int64?
}

let arguments = CommandLine.arguments
let count = arguments.firstIndex(of: "--updates").flatMap { Int(arguments[$0 + 1]) } ?? 50_000

func todo(_ id: Int) -> Todo {
    Todo(
        id: Int64(id), title: "Buy milk, then call \(id)", project: "Home", priority: id % 5, done: id % 2 == 0,
        assignee_id: id % 3 == 0 ? nil : Int64(id % 97))
}

/// `count` updates of `entities` updated to-dos each, each between versions of its own (the encoder's cache
/// never serves them).
func updates(entities: Int) -> [ResultsUpdate<Todo>] {
    (0..<count).map { step in
        let items = (0..<entities).map {
            ResultsUpdate<Todo>.Item(indexPath: IndexPath(item: step % 1_000 + $0, section: 0), entity: todo(step + $0))
        }
        return ResultsUpdate(
            version: ResultsVersion("3f09c2b4a17e55d0-\(step + 1)")!,
            content: .changes(base: ResultsVersion("3f09c2b4a17e55d0-\(step)")!, .init(updatedItems: items)))
    }
}

/// The thread's CPU time, in nanoseconds: on a machine shared with other work, wall time measures the others.
func cpuNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}

/// CPU nanoseconds per update of `body` over `updates`.
func time(_ updates: [ResultsUpdate<Todo>], _ body: (ResultsUpdate<Todo>) throws -> ByteBuffer) rethrows -> Double {
    var bytes = 0
    let start = cpuNanoseconds()
    for update in updates { bytes &+= try body(update).readableBytes }
    let elapsed = cpuNanoseconds() - start
    precondition(bytes > 0)
    return Double(elapsed) / Double(updates.count)
}

print("update | JSONEncoder, whole | _UpdateEncoder | ratio | bytes")
print("--- | --- | --- | --- | ---")
for entities in [1, 24] {
    let updates = updates(entities: entities)
    let encoder = JSONEncoder()
    var whole: [Double] = []
    var written: [Double] = []
    for _ in 0..<7 {
        whole.append(try time(updates) { ByteBuffer(data: try encoder.encode($0)) })
        let updateEncoder = _UpdateEncoder<Todo>(encoder: encoder)
        written.append(try time(updates) { try updateEncoder.json($0) })
    }
    whole.sort()
    written.sort()
    let bytes = try _UpdateEncoder<Todo>(encoder: encoder).json(updates[0]).readableBytes
    func figure(_ times: [Double]) -> String { String(format: "%.0f ns (median %.0f)", times[0], times[3]) }
    print(
        "\(entities) updated \(entities == 1 ? "entity" : "entities") | \(figure(whole)) | \(figure(written)) | "
            + String(format: "%.2f×", whole[0] / written[0]) + " | \(bytes)")
}
