import CHeapInfo
import Foundation

/// The process's memory at one moment: bytes allocated with malloc, and resident bytes.
public struct MemoryUsage: Sendable {
    /// Bytes in use in malloc's heap, over all arenas (glibc's `mallinfo2`), after returning free memory
    /// to the system.
    public var heapBytes: Int
    /// Resident set size (`/proc/self/statm`).
    public var residentBytes: Int

    /// The memory in use now.
    public static func current() -> MemoryUsage {
        let heapBytes = Int(cheapinfo_heap_bytes_in_use())
        return MemoryUsage(heapBytes: heapBytes, residentBytes: residentBytes())
    }

    /// The growth from `earlier` to `self`.
    public func growth(since earlier: MemoryUsage) -> MemoryUsage {
        MemoryUsage(heapBytes: heapBytes - earlier.heapBytes, residentBytes: residentBytes - earlier.residentBytes)
    }

    private static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
