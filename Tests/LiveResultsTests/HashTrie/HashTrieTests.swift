import LiveResultsTesting
import Testing

@testable import LiveResults

/// A key whose hash the test chooses, to force shared fragments and whole-hash collisions.
private struct CollidingKey: Hashable, Sendable {
    var value: Int
    var hashBits: Int

    func hash(into hasher: inout Hasher) { hasher.combine(hashBits) }
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.value == rhs.value }
}

/// A value that carries its key, as the trie requires.
private struct Entry<Key: Hashable & Sendable, Payload: Equatable & Sendable>: _HashTrieValue, Equatable {
    var key: Key
    var value: Payload
    var trieKey: Key { key }
}

/// A value holding a ``LifetimeWatch/Token``.
private struct Tracked: Equatable, Sendable {
    let token: LifetimeWatch.Token

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.token === rhs.token }
}

/// A trie of values whose lifetimes a ``LifetimeWatch`` follows.
private typealias TrackedTrie = _HashTrie<Int, Entry<Int, Tracked>>

extension LifetimeWatch {
    fileprivate func tracked() -> Tracked { Tracked(token: token()) }

    /// A trie of `count` tracked values under the keys `0..<count`.
    fileprivate func trackedTrie(count: Int) -> TrackedTrie {
        TrackedTrie(uniqueValues: (0..<count).map { Entry(key: $0, value: tracked()) })
    }
}

/// A value aligned to 16 bytes, more than a node's child references.
private struct Wide: Equatable, Sendable {
    var bits: SIMD4<Float>
}

@Suite("Persistent hash trie")
struct HashTrieTests {
    /// `differences(since:)` lists every key whose value differs between two versions (a superset of
    /// them, the complete ones with exactly their two values), and nothing when the versions are equal;
    /// with keys that share fragments and whole hashes.
    @Test("the differences between two versions", arguments: [UInt64(1), 2, 3])
    func differencesBetweenVersions(seed: UInt64) {
        typealias Trie = _HashTrie<CollidingKey, Entry<CollidingKey, Int>>
        var random = SeededGenerator(seed: seed)
        func key() -> CollidingKey {
            let value = Int.random(in: 0..<400, using: &random)
            // Few distinct hashes: many shared fragments, and collision nodes below the last one.
            return CollidingKey(value: value, hashBits: value % 3 == 0 ? value % 7 : value)
        }
        var trie = Trie()
        var model: [CollidingKey: Int] = [:]
        for step in 0..<300 {
            let (key, value) = (key(), step)
            trie.updateValue(Entry(key: key, value: value))
            model[key] = value
        }
        for round in 0..<200 {
            let (old, oldModel) = (trie, model)
            #expect(trie.differences(since: old).isEmpty)
            for step in 0..<Int.random(in: 0...12, using: &random) {
                let key = key()
                if Int.random(in: 0..<3, using: &random) == 0 {
                    trie.removeValue(forKey: key)
                    model[key] = nil
                } else {
                    let value = Int.random(in: 0..<3, using: &random) == 0 ? (model[key] ?? step) : round * 100 + step
                    trie.updateValue(Entry(key: key, value: value))
                    model[key] = value
                }
            }
            let changed = Set(oldModel.keys).union(model.keys).filter { oldModel[$0] != model[$0] }
            let listed = trie.differences(since: old)
            #expect(changed.isSubset(of: Set(listed.map(\.key))), "round \(round)")
            #expect(listed.count <= 16 * 20 * max(1, changed.count), "only the paths the changes copied")
            for difference in listed where difference.isComplete {
                #expect(difference.old?.value == oldModel[difference.key], "round \(round)")
                #expect(difference.new?.value == model[difference.key], "round \(round)")
                #expect(difference.old != difference.new, "a complete difference differs")
            }
        }
    }

    @Test(
        "random updates and removals agree with a dictionary; old versions stay intact", arguments: [UInt64(1), 2, 3])
    func randomOperations(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var trie = _HashTrie<Int, Entry<Int, Int>>()
        var model: [Int: Int] = [:]
        var versions: [(trie: _HashTrie<Int, Entry<Int, Int>>, contents: [Int: Int])] = []
        for step in 0..<20000 {
            let key = Int.random(in: 0..<3000, using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 {
                #expect(trie.removeValue(forKey: key)?.value == model.removeValue(forKey: key))
            } else {
                #expect(trie.updateValue(Entry(key: key, value: step))?.value == model.updateValue(step, forKey: key))
            }
            if step % 1999 == 0 { versions.append((trie, model)) }
        }
        expect(trie, equals: model)
        for version in versions { expect(version.trie, equals: version.contents) }
    }

    @Test("colliding hashes, whole and partial, are kept apart")
    func collisions() {
        var trie = _HashTrie<CollidingKey, Entry<CollidingKey, Int>>()
        var model: [CollidingKey: Int] = [:]
        // Keys 0..<40 share one of four whole hashes; some hashes differ only in high bits.
        let keys = (0..<40).map { CollidingKey(value: $0, hashBits: [7, 7 | (1 << 62), 7 | (1 << 40), 9][$0 % 4]) }
        for key in keys {
            trie.updateValue(Entry(key: key, value: key.value))
            model[key] = key.value
        }
        expect(trie, equals: model)
        let full = trie
        for key in keys where key.value % 3 == 0 {
            #expect(trie.removeValue(forKey: key)?.value == model.removeValue(forKey: key))
        }
        expect(trie, equals: model)
        #expect(trie[CollidingKey(value: 1000, hashBits: 7)] == nil)
        expect(_HashTrie(uniqueValues: model.map { Entry(key: $0.key, value: $0.value) }), equals: model)
        // Down to nothing, through collision nodes of two and of one entry.
        for key in keys { trie.removeValue(forKey: key) }
        expect(trie, equals: [:])
        expect(full, equals: Dictionary(uniqueKeysWithValues: keys.map { ($0, $0.value) }))
    }

    @Test("bulk building equals inserting one by one", arguments: [0, 1, 2, 33, 1000, 50000])
    func bulkBuild(size: Int) {
        let entries = (0..<size).map { Entry(key: $0 * 7919, value: $0) }
        let trie = _HashTrie<Int, Entry<Int, Int>>(uniqueValues: entries)
        expect(trie, equals: Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) }))
        var oneByOne = _HashTrie<Int, Entry<Int, Int>>()
        for entry in entries.reversed() { oneByOne.updateValue(entry) }
        #expect(shape(of: trie.root) == shape(of: oneByOne.root))
        var grown = trie
        grown.updateValue(Entry(key: -1, value: -1))
        #expect(trie[-1] == nil && grown[-1]?.value == -1)
    }

    @Test("bulk building with colliding hashes equals inserting one by one")
    func bulkBuildWithCollisions() {
        let entries = (0..<200).map { Entry(key: CollidingKey(value: $0, hashBits: $0 % 37 * 0x1111), value: $0) }
        let trie = _HashTrie<CollidingKey, Entry<CollidingKey, Int>>(uniqueValues: entries)
        expect(trie, equals: Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) }))
        var oneByOne = _HashTrie<CollidingKey, Entry<CollidingKey, Int>>()
        for entry in entries { oneByOne.updateValue(entry) }
        #expect(shape(of: trie.root) == shape(of: oneByOne.root))
    }

    @Test("a walk in hash order and the bulk build's hash order agree, collisions included")
    func hashOrder() {
        typealias Trie = _HashTrie<CollidingKey, Entry<CollidingKey, Int>>
        var random = SeededGenerator(seed: 11)
        let entries = (0..<3000).map { Entry(key: CollidingKey(value: $0, hashBits: $0 % 1700), value: $0) }
        let (trie, order) = Trie.built(uniqueValues: entries, keepingHashOrder: true)
        let walked = IteratorSequence(trie.makeHashOrderIterator()).map(\.pointee.value)
        #expect(walked.count == entries.count && Set(walked).count == entries.count)
        let keys = walked.map { Trie.hashOrderKey(of: Trie.hash(entries[$0].key)) }
        #expect(keys == keys.sorted())
        #expect(order.map(\.hash) == keys)
        #expect(order.map { Trie.hashOrderKey(of: Trie.hash(entries[$0.index].key)) } == keys)
        // After single-value edits the walk still goes in hash order.
        var edited = trie
        for _ in 0..<2000 {
            let value = Int.random(in: 0..<4000, using: &random)
            let entry = Entry(key: CollidingKey(value: value, hashBits: value % 1700), value: value)
            if Bool.random(using: &random) { edited.updateValue(entry) } else { edited.removeValue(forKey: entry.key) }
        }
        let editedKeys = IteratorSequence(edited.makeHashOrderIterator()).map {
            Trie.hashOrderKey(of: Trie.hash($0.pointee.key))
        }
        #expect(editedKeys.count == edited.count && editedKeys == editedKeys.sorted())
    }

    @Test("a value is released once no version holds it, and only then")
    func lifetimes() {
        let watch = LifetimeWatch()

        var random = SeededGenerator(seed: 7)
        var trie = watch.trackedTrie(count: 500)
        var versions: [TrackedTrie] = []
        for step in 0..<3000 {
            let key = Int.random(in: 0..<800, using: &random)
            if step % 3 == 0 {
                trie.removeValue(forKey: key)
            } else {
                trie.updateValue(Entry(key: key, value: watch.tracked()))
            }
            if step % 300 == 0 { versions.append(trie) }
        }
        let held = Set((versions + [trie]).flatMap { $0.map { ObjectIdentifier($0.value.token) } })
        #expect(watch.liveCount == held.count)
        versions.removeAll()
        // Nodes copied while the versions were alive borrow their children from the nodes they replaced,
        // which keep old values until the trie changes along their paths (see `_TrieNode`).
        #expect(watch.liveCount >= trie.count && watch.liveCount <= held.count)
        for key in 0..<800 { trie.updateValue(Entry(key: key, value: watch.tracked())) }
        trie._checkInvariants()
        #expect(watch.liveCount == trie.count)
        trie = _HashTrie()
        #expect(watch.liveCount == 0)
    }

    @Test("a snapshot let go before the next change is freed by that change, borrowed children included")
    func snapshotAfterEveryChange() {
        let watch = LifetimeWatch()

        var random = SeededGenerator(seed: 11)
        var trie = watch.trackedTrie(count: 3000)
        var model = Dictionary(uniqueKeysWithValues: trie.map { ($0.key, $0.value) })
        var snapshot = trie
        for step in 0..<2000 {
            let key = Int.random(in: 0..<4000, using: &random)
            if step % 4 == 0 {
                #expect(trie.removeValue(forKey: key)?.value == model.removeValue(forKey: key))
            } else {
                let value = watch.tracked()
                #expect(trie.updateValue(Entry(key: key, value: value))?.value == model.updateValue(value, forKey: key))
            }
            #expect(snapshot.root.borrowedMap == 0, "the snapshot's nodes lend, they do not borrow")
            // Copies reuse the nodes the absorbs emptied: their layouts must still fit their allocations.
            if step % 50 == 0 { trie._checkInvariants() }
            snapshot = trie
            // The previous snapshot is gone: what it alone held is freed once the next change begins.
            #expect(watch.liveCount <= trie.count + 1)
        }
        trie._checkInvariants()
        expect(trie, equals: model)
        snapshot = _HashTrie()
        trie.updateValue(Entry(key: 0, value: watch.tracked()))
        _ = model.updateValue(trie[0]!.value, forKey: 0)
        #expect(watch.liveCount == trie.count)
        expect(trie, equals: model)
    }

    @Test("absorbing every source frees what released versions held, and keeps what live ones hold")
    func absorbAllSources() {
        let watch = LifetimeWatch()

        var random = SeededGenerator(seed: 5)
        var trie = watch.trackedTrie(count: 2000)
        func changeRandomKeys() {
            for _ in 0..<1500 {
                let key = Int.random(in: 0..<2500, using: &random)
                if Bool.random(using: &random) {
                    trie.updateValue(Entry(key: key, value: watch.tracked()))
                } else {
                    trie.removeValue(forKey: key)
                }
            }
        }
        func tokens(_ versions: TrackedTrie...) -> Set<ObjectIdentifier> {
            Set(versions.flatMap { $0.map { ObjectIdentifier($0.value.token) } })
        }
        var released: TrackedTrie? = trie
        changeRandomKeys()
        released = nil
        // The copies made while `released` was alive keep its nodes, and its values, as sources.
        #expect(released == nil && watch.liveCount > trie.count)
        trie.absorbAllSources()
        #expect(watch.liveCount == trie.count)
        trie._checkInvariants()

        var held: TrackedTrie? = trie
        let heldTokens = Dictionary(uniqueKeysWithValues: trie.map { ($0.key, ObjectIdentifier($0.value.token)) })
        changeRandomKeys()
        trie.absorbAllSources()
        #expect(watch.liveCount == tokens(held!, trie).count, "what a live version holds stays")
        #expect(held!.count == heldTokens.count)
        #expect(held!.allSatisfy { heldTokens[$0.key] == ObjectIdentifier($0.value.token) }, "a live version is intact")
        held!._checkInvariants()

        held = nil
        trie.absorbAllSources()
        #expect(watch.liveCount == trie.count)
        trie._checkInvariants()
    }

    /// Readers on another thread walk nodes that the writer's next change copies, borrows from and
    /// absorbs into (`.ci/run` runs it under ThreadSanitizer too).
    @Test(
        "snapshots read on another thread while the trie changes, copies and absorbs stay consistent",
        .tags(.concurrent))
    func readersOnAnotherThread() async {
        let initial = _HashTrie<Int, Entry<Int, Int>>(uniqueValues: (0..<2000).map { Entry(key: $0, value: $0) })
        let latest = _Lock(initial)
        let (readerStarted, writerDone) = (EventHarness.Flag(), EventHarness.Flag())
        let reader = Task.detached {
            var (readsDuringWrites, problems) = (0, 0)
            readerStarted.set()
            while !writerDone.isSet {
                let snapshot = latest.withLock { $0 }
                for key in stride(from: 0, to: 2000, by: 7) where snapshot[key].map({ $0.value % 4000 != key }) ?? true
                {
                    problems += 1
                }
                readsDuringWrites += 1
            }
            return (readsDuringWrites, problems)
        }
        while !readerStarted.isSet { await Task.yield() }
        var trie = initial
        for step in 1...20_000 {
            let key = step * 7919 % 2000
            trie.updateValue(Entry(key: key, value: key + 4000 * step))
            latest.withLock { $0 = trie }
        }
        writerDone.set()
        let (reads, problems) = await reader.value
        #expect(problems == 0)
        #expect(reads > 0, "the reader overlapped the writer")
        trie._checkInvariants()
    }

    @Test("entries aligned beyond a pointer stay aligned")
    func wideValues() {
        var trie = _HashTrie<Int, Entry<Int, Wide>>(
            uniqueValues: (0..<300).map { Entry(key: $0, value: Wide(bits: SIMD4(repeating: Float($0)))) })
        var model = Dictionary(uniqueKeysWithValues: (0..<300).map { ($0, Wide(bits: SIMD4(repeating: Float($0)))) })
        for key in stride(from: 0, to: 600, by: 7) {
            let value = Wide(bits: SIMD4(repeating: Float(-key)))
            #expect(trie.updateValue(Entry(key: key, value: value))?.value == model.updateValue(value, forKey: key))
        }
        for key in stride(from: 0, to: 600, by: 5) {
            #expect(trie.removeValue(forKey: key)?.value == model.removeValue(forKey: key))
        }
        expect(trie, equals: model)
    }

    /// The maps of every node, depth first: equal for equal contents, since the trie is canonical.
    private func shape<Value>(of node: _TrieNode<Value>) -> [UInt64] {
        let maps = node.maps
        var shape = [UInt64(maps.entryMap) << 32 | UInt64(maps.childMap)]
        for index in 0..<maps.childCount { shape += self.shape(of: node.children[index]) }
        return shape
    }

    private func expect<Key, Value: Equatable>(
        _ trie: _HashTrie<Key, Entry<Key, Value>>, equals model: [Key: Value],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        trie._checkInvariants()
        #expect(trie.count == model.count, sourceLocation: sourceLocation)
        #expect(
            Dictionary(uniqueKeysWithValues: trie.map { ($0.key, $0.value) }) == model, sourceLocation: sourceLocation)
        for (key, value) in model { #expect(trie[key]?.value == value, sourceLocation: sourceLocation) }
    }
}
