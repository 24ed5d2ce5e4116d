import BenchmarkSupport
import Foundation
import LiveResults

// What a live window costs in memory, and what each version it holds for a catch-up costs: the growth of
// malloc's heap for W windows of 50 tiling a controller of n rows (no observer), then for an update stream
// opened on each (the window then holds its versions), then for K content updates spread over the windows,
// each the next version of one window. Every window stays below the versions it may hold (256), so none is
// dropped: the last growth divided by the versions made is what one held version costs.
//
//   swift run -c release WindowMemory [n] [windows] [updates]     default: 10000 100 20000

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let count = arguments.count > 0 ? arguments[0] : 10_000
let windowCount = arguments.count > 1 ? arguments[1] : 100
let updateCount = arguments.count > 2 ? arguments[2] : 20_000
let width = 50
precondition(windowCount * width <= count, "the windows must fit in the rows")
precondition(updateCount / windowCount < 256, "each window must keep every version it makes")

let controller = try await LiveResultsDesign(fetching: Dataset.rows(count: count)).controller
let rows = Array(controller.fetchedObjects)
let start = MemoryUsage.current()
let windows = (0..<windowCount).map { controller.window(.range(offset: $0 * width, limit: width)) }
let withWindows = MemoryUsage.current()
// Streams that read nothing, with a buffer of one: what they buffer collapses into one catch-up, so the
// growth below is the windows' held versions, not the streams' buffers.
let streams = windows.map { $0.updates(bufferLimit: 1) }
let withStreams = MemoryUsage.current()
var random = SplitMix64(seed: Dataset.seed)
for index in 0..<updateCount {
    // A content update of a row of the windows, which moves nothing: one version of the window holding it.
    var row = rows[random.below(windowCount * width)]
    row.title = "title \(row.id) \(index)"
    controller.apply(.updated(row))
}
let updated = MemoryUsage.current()
// Each update changes one entity of one window in place: one version of that window.
let versions = updateCount
withExtendedLifetime((rows, windows, streams)) {}

func perItem(_ growth: MemoryUsage, _ items: Int) -> String {
    String(
        format: "%10.1f B heap %10.1f B resident", Double(growth.heapBytes) / Double(items),
        Double(growth.residentBytes) / Double(items))
}
print("\(Dataset.label(count)) rows, \(windowCount) windows of \(width), \(updateCount) content updates")
print("per window (no observer)      " + perItem(withWindows.growth(since: start), windowCount))
print("per stream opened on a window " + perItem(withStreams.growth(since: withWindows), windowCount))
print("per held version (\(versions))  " + perItem(updated.growth(since: withStreams), versions))
