import Foundation
import LiveResults
import Testing

@Suite("In-memory results store")
struct InMemoryResultsStoreTests {
    @Test("gives back the data and date it was given, per key")
    func roundTrip() async throws {
        let store = InMemoryResultsStore()
        let first = CachedResults(data: Data([1, 2, 3]), savedAt: Date(timeIntervalSinceReferenceDate: 12.5))
        let second = CachedResults(data: Data(), savedAt: Date(timeIntervalSince1970: 0))
        #expect(try await store.results(forKey: "posts") == nil)
        try await store.save(first, forKey: "posts")
        try await store.save(second, forKey: "posts/../other key é")
        #expect(try await store.results(forKey: "posts") == first)
        #expect(try await store.results(forKey: "posts/../other key é") == second)
        try await store.save(second, forKey: "posts")
        #expect(try await store.results(forKey: "posts") == second)
    }

    @Test("removes a key, and removing a missing key does not throw")
    func remove() async throws {
        let store = InMemoryResultsStore()
        try await store.removeResults(forKey: "missing")
        try await store.save(CachedResults(data: Data([9]), savedAt: Date()), forKey: "posts")
        try await store.removeResults(forKey: "posts")
        #expect(try await store.results(forKey: "posts") == nil)
    }

    @Test("concurrent saves to one key leave exactly one of them", .tags(.concurrent))
    func concurrentSaves() async throws {
        let store = InMemoryResultsStore()
        let payloads = (0..<50).map { index in
            CachedResults(
                data: Data(repeating: UInt8(index), count: 100), savedAt: Date(timeIntervalSince1970: Double(index)))
        }
        await withTaskGroup(of: Void.self) { group in
            for payload in payloads {
                group.addTask { try? await store.save(payload, forKey: "shared") }
            }
        }
        let result = try #require(try await store.results(forKey: "shared"))
        #expect(payloads.contains(result))
    }
}
