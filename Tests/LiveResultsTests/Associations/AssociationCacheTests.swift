import Foundation
import Testing

@testable import LiveResults

/// `_AssociationCache`, the state machine, driven synchronously: every arrival order, failure and
/// drop chosen by the test, with the invariants checked after each step.
@Suite("Association cache state machine", .tags(.concurrent))
struct AssociationCacheTests {
    typealias Cache = _AssociationCache<Post>

    static let authors = Association<Post, String>(key: \.authorID) { _ in [:] }
    static let tags = Association<Post, [String]>(keys: \.tagIDs) { _ in [:] }
    static let start = ContinuousClock.now

    static func storage(_ posts: [Post]) -> _SectionedStorage<Post> {
        let ordering = _EntityOrdering<Post>(
            sectionNameKeyPath: nil, sectionOrder: .ascending,
            rule: _EntityOrdering.rule(of: [SortDescriptor(\Post.score)]))
        return _SectionedStorage(
            ordering: ordering,
            contents: posts.enumerated().map { _StoredEntity(entity: $1, sequence: UInt64($0)) })
    }

    static func results(_ keys: [Int]) -> [_AssociationKey: any Sendable] {
        Dictionary(uniqueKeysWithValues: keys.map { (_AssociationKey($0), "v\($0)" as any Sendable) })
    }

    static func keys(_ request: Cache.Request?) -> [Int] {
        request?.keys.map { $0.base.base as! Int } ?? []
    }

    /// Reads and returns the parts of a cached value as strings, or a word for the other outcomes.
    static func read(
        _ cache: inout Cache, _ id: Int, in storage: _SectionedStorage<Post>, size: Int = 10,
        at now: ContinuousClock.Instant = start
    ) -> (String, [Int]) {
        let (read, request) = cache.read(id, in: storage, windowSize: size, now: now)
        cache._checkInvariants()
        switch read {
        case .cached(let parts): return (parts.map { ($0 as? String) ?? "-" }.joined(separator: ","), keys(request))
        case .pending: return ("pending", keys(request))
        case .backingOff: return ("backing off", keys(request))
        case .notShown: return ("not shown", keys(request))
        }
    }

    // MARK: Windows

    @Test func everyWindowHoldsTheEntityAndStaysInside() {
        for count in 0..<20 {
            for size in 0..<12 {
                for index in 0..<count {
                    let window = Cache.window(around: index, size: size, count: count)
                    #expect(window.contains(index))
                    #expect(window.count == (size == 0 ? count : min(size, count)))
                    #expect(window.lowerBound >= 0 && window.upperBound <= count)
                    if size > 0, window.lowerBound > 0, window.upperBound < count {
                        #expect(window.lowerBound == index - size / 2, "centered when it fits")
                    }
                }
            }
        }
    }

    // MARK: Reference counts

    @Test func sharedKeysAreCountedAndDroppedWithTheirLastEntity() throws {
        var storage = Self.storage([Post(1, authorID: 7), Post(2, authorID: 7), Post(3, authorID: 8)])
        var cache = Cache(Self.authors)
        let (read, request) = cache.read(1, in: storage, windowSize: 10, now: Self.start)
        guard case .pending = read else { Issue.record("\(read)"); return }
        #expect(Self.keys(request) == [7, 8])
        let settlement = cache.receive(Self.results([7, 8]), for: try #require(request), in: storage)
        cache._checkInvariants()
        #expect(Set(settlement.served) == [1, 2, 3])
        #expect(settlement.released.isEmpty && settlement.followUp == nil)
        #expect(cache.references[_AssociationKey(7)] == 2)

        storage.remove(id: 1)
        let firstReleased = cache.entityChanged(1, in: storage)
        #expect(!firstReleased, "served, not waiting: no waiter to resume")
        cache._checkInvariants()
        #expect(cache.references[_AssociationKey(7)] == 1)
        #expect(cache.values.keys.contains(_AssociationKey(7)))
        storage.remove(id: 2)
        let secondReleased = cache.entityChanged(2, in: storage)
        #expect(!secondReleased)
        cache._checkInvariants()
        #expect(!cache.values.keys.contains(_AssociationKey(7)), "the last entity using 7 is gone")
        #expect(cache.values.keys.contains(_AssociationKey(8)))
    }

    // MARK: Several requests for one entity

    @Test(arguments: [true, false])
    func anEntityWaitingForTwoRequestsIsServedWhateverTheirOrder(ownRequestFirst: Bool) throws {
        let storage = Self.storage([Post(1, tagIDs: [1, 2]), Post(2, tagIDs: [2, 3])])
        var cache = Cache(Self.tags)
        let first = cache.read(1, in: storage, windowSize: 1, now: Self.start).1
        let second = cache.read(2, in: storage, windowSize: 1, now: Self.start).1
        #expect(Self.keys(first) == [1, 2])
        #expect(Self.keys(second) == [3], "2 is in flight already")
        cache._checkInvariants()

        let order =
            ownRequestFirst
            ? [try #require(second), try #require(first)] : [try #require(first), try #require(second)]
        let early = cache.receive(Self.results(Self.keys(order[0])), for: order[0], in: storage)
        cache._checkInvariants()
        let late = cache.receive(Self.results(Self.keys(order[1])), for: order[1], in: storage)
        cache._checkInvariants()
        #expect(early.followUp == nil && late.followUp == nil, "what arrived first is kept for the waiting entity")
        #expect(Set(early.served + late.served) == [1, 2])
        #expect(late.served.contains(2), "post 2 is served when its last key arrives")
        #expect(Self.read(&cache, 2, in: storage).0 == "v2,v3")
        #expect(Self.read(&cache, 1, in: storage).0 == "v1,v2")
    }

    @Test func valuesDroppedWhileAnEntityWaitsAreRequestedAgain() throws {
        let storage = Self.storage([Post(1, tagIDs: [1, 2]), Post(2, tagIDs: [2, 3])])
        var cache = Cache(Self.tags)
        let first = try #require(cache.read(1, in: storage, windowSize: 1, now: Self.start).1)
        _ = cache.receive(Self.results([1, 2]), for: first, in: storage)
        let second = try #require(cache.read(2, in: storage, windowSize: 1, now: Self.start).1)
        #expect(Self.keys(second) == [3], "2 is cached")

        #expect(cache.dropValues() == [1], "memory pressure: post 1 had a value")
        cache._checkInvariants()
        let arrival = cache.receive(Self.results([3]), for: second, in: storage)
        cache._checkInvariants()
        #expect(arrival.served.isEmpty)
        let followUp = try #require(arrival.followUp)
        #expect(Self.keys(followUp) == [2], "the value post 2 relied on was dropped: request it again")
        let last = cache.receive(Self.results([2]), for: followUp, in: storage)
        cache._checkInvariants()
        #expect(last.served == [2])
        #expect(Self.read(&cache, 2, in: storage).0 == "v2,v3")
    }

    @Test func eventsReleaseWaitingEntitiesThatAreGoneOrChangedKeys() throws {
        var storage = Self.storage([Post(1), Post(2), Post(3), Post(4)])
        var cache = Cache(Self.authors)
        let request = try #require(cache.read(2, in: storage, windowSize: 3, now: Self.start).1)
        storage.remove(id: 1)
        storage.replaceInPlace(Post(3, authorID: 31))
        storage.replaceInPlace(Post(2, score: 2, authorID: 20))  // same keys: still waiting
        let released = [1, 2, 3, 4].map { cache.entityChanged($0, in: storage) }
        #expect(released == [true, false, true, false])
        cache._checkInvariants()
        #expect(cache.waiting.keys.sorted() == [2])
        let settlement = cache.receive(Self.results([10, 20, 30]), for: request, in: storage)
        cache._checkInvariants()
        #expect(settlement.served == [2] && settlement.released.isEmpty)
        #expect(cache.values.keys.map { $0.base as! Int } == [20], "10 and 30 are kept for nobody")
        #expect(Self.read(&cache, 3, in: storage) == ("pending", [31, 40]), "post 4 is in the window")
    }

    @Test func anArrivalReleasesTheEntitiesNoLongerShown() throws {
        let storage = Self.storage([Post(1), Post(2)])
        var cache = Cache(Self.authors)
        let request = try #require(cache.read(1, in: storage, windowSize: 2, now: Self.start).1)
        let empty = Self.storage([])  // a reset empties the storage without events
        let settlement = cache.receive(Self.results([10, 20]), for: request, in: empty)
        cache._checkInvariants()
        #expect(settlement.served.isEmpty)
        #expect(Set(settlement.released) == [1, 2])
        #expect(cache.values.isEmpty && cache.references.isEmpty)
    }

    @Test func aFetchKeepsTheValuesWhoseKeysDidNotChange() throws {
        var cache = Cache(Self.authors)
        let before = Self.storage([Post(1), Post(2), Post(3), Post(4)])
        let first = try #require(cache.read(1, in: before, windowSize: 2, now: Self.start).1)
        _ = cache.receive(Self.results([10, 20]), for: first, in: before)
        _ = cache.read(4, in: before, windowSize: 2, now: Self.start)  // 3 and 4 wait
        let after = Self.storage([Post(1), Post(2, authorID: 21), Post(4)])
        #expect(cache.reconcile(with: after) == [3])
        cache._checkInvariants()
        #expect(cache.served.keys.sorted() == [1])
        #expect(cache.waiting.keys.sorted() == [4])
    }

    // MARK: Failure and backoff

    @Test func failuresPauseRequestsByADoublingBoundedBackoffUntilASuccess() throws {
        let backoff = AssociationBackoff(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(400))
        let authors = Association<Post, String>(key: \.authorID, backoff: backoff) { _ in [:] }
        let storage = Self.storage([Post(1), Post(2)])
        var cache = Cache(authors)
        var now = Self.start
        for (failure, pause) in [(1, 100), (2, 200), (3, 400), (4, 400)] {
            let request = try #require(cache.read(1, in: storage, windowSize: 1, now: now).1)
            #expect(Set(cache.fail(request, error: CancellationError(), now: now)) == [1])
            cache._checkInvariants()
            #expect(cache.consecutiveFailures == failure)
            #expect(Self.read(&cache, 1, in: storage, at: now + .milliseconds(pause - 1)) == ("backing off", []))
            now += .milliseconds(pause)
        }
        let request = try #require(cache.read(1, in: storage, windowSize: 1, now: now).1)
        _ = cache.receive(Self.results([10]), for: request, in: storage)
        #expect(cache.consecutiveFailures == 0 && cache.retryAt == nil)
        #expect(Self.read(&cache, 2, in: storage, at: now) == ("pending", [20]), "no pause after a success")
    }
}
