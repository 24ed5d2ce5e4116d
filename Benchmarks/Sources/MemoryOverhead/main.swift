import BenchmarkSupport
import Foundation

// Prints the memory a controller needs per entity beyond the entities themselves, for each size:
// the growth of malloc's heap (and of resident memory) for a `[Row]` array of n rows, then for a
// controller that fetched them once the array is gone.
//
//   swift run -c release MemoryOverhead [n ...]     default: 1k 10k 100k 1M

let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }
print("Row: \(MemoryLayout<Row>.stride) bytes per entity in an array; all strings inline")
print("n          rows heap  controller heap  overhead heap/entity  overhead resident/entity")
for count in counts.isEmpty ? Dataset.sizes : counts {
    let overhead = try await MemoryOverhead.measure(count: count)
    let columns = [
        Dataset.label(count).padding(toLength: 9, withPad: " ", startingAt: 0),
        "\(overhead.rows.heapBytes)".leftPadded(to: 10),
        "\(overhead.controller.heapBytes)".leftPadded(to: 16),
        String(format: "%18.1f B", overhead.heapBytesPerEntity),
        String(format: "%22.1f B", overhead.residentBytesPerEntity),
    ]
    print(columns.joined(separator: "  "))
}

extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: " ", count: max(0, length - count)) + self
    }
}
