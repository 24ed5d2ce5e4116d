import Testing

@testable import LiveResults

/// A key whose hash the test chooses, to force shared fragments and whole-hash collisions.
private struct CollidingKey: Hashable, Sendable {
    var value: Int
    var hashBits: Int

    func hash(into hasher: inout Hasher) { hasher.combine(hashBits) }
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.value == rhs.value }
}

@Suite("Persistent hash trie")
struct HashTrieTests {
    @Test(
        "random updates and removals agree with a dictionary; old versions stay intact", arguments: [UInt64(1), 2, 3])
    func randomOperations(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var trie = _HashTrie<Int, Int>()
        var model: [Int: Int] = [:]
        var versions: [(trie: _HashTrie<Int, Int>, contents: [Int: Int])] = []
        for step in 0..<20000 {
            let key = Int.random(in: 0..<3000, using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 {
                #expect(trie.removeValue(forKey: key) == model.removeValue(forKey: key))
            } else {
                #expect(trie.updateValue(step, forKey: key) == model.updateValue(step, forKey: key))
            }
            if step % 1999 == 0 { versions.append((trie, model)) }
        }
        expect(trie, equals: model)
        for version in versions { expect(version.trie, equals: version.contents) }
    }

    @Test("colliding hashes, whole and partial, are kept apart")
    func collisions() {
        var trie = _HashTrie<CollidingKey, Int>()
        var model: [CollidingKey: Int] = [:]
        // Keys 0..<40 share one of four whole hashes; some hashes differ only in high bits.
        let keys = (0..<40).map { CollidingKey(value: $0, hashBits: [7, 7 | (1 << 62), 7 | (1 << 40), 9][$0 % 4]) }
        for key in keys {
            trie.updateValue(key.value, forKey: key)
            model[key] = key.value
        }
        expect(trie, equals: model)
        for key in keys where key.value % 3 == 0 {
            #expect(trie.removeValue(forKey: key) == model.removeValue(forKey: key))
        }
        expect(trie, equals: model)
        #expect(trie[CollidingKey(value: 1000, hashBits: 7)] == nil)
        expect(_HashTrie(uniqueKeysWithValues: model.map { (key: $0.key, value: $0.value) }), equals: model)
    }

    @Test("bulk building equals inserting one by one", arguments: [0, 1, 2, 33, 1000, 50000])
    func bulkBuild(size: Int) {
        let entries = (0..<size).map { (key: $0 * 7919, value: $0) }
        let trie = _HashTrie(uniqueKeysWithValues: entries)
        expect(trie, equals: Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) }))
        var grown = trie
        grown.updateValue(-1, forKey: -1)
        #expect(trie[-1] == nil && grown[-1] == -1)
    }

    private func expect<Key, Value: Equatable>(
        _ trie: _HashTrie<Key, Value>, equals model: [Key: Value], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        trie._checkInvariants()
        #expect(trie.count == model.count, sourceLocation: sourceLocation)
        #expect(
            Dictionary(uniqueKeysWithValues: trie.map { ($0.key, $0.value) }) == model, sourceLocation: sourceLocation)
        for (key, value) in model { #expect(trie[key] == value, sourceLocation: sourceLocation) }
    }
}
