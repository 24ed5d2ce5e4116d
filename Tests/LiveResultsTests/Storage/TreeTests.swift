import Testing

@testable import LiveResults

/// A tree element whose key is its value, with a weight of its own.
private protocol WeightedElement: _TreeElement, Equatable where Key == Int {
    init(value: Int, weight: Int)
    var value: Int { get }
    var weight: Int { get set }
}

extension WeightedElement {
    var treeKey: Int { value }
    var treeWeight: Int { weight }
}

/// Leaves and internal nodes of 4: deep trees from few elements.
private struct Weighted: WeightedElement {
    var value: Int
    var weight: Int
    static var treeNodeCapacity: Int { 4 }
}

/// Leaves of 16 and internal nodes of 4, so that splits, merges and bulk builds meet nodes of both widths.
private struct WideLeafWeighted: WeightedElement {
    var value: Int
    var weight: Int
    static var treeNodeCapacity: Int { 16 }
}

@Suite("Persistent counted tree")
struct TreeTests {
    /// Random insertions, removals and modifications, each checked against an array; old versions
    /// kept along the way must never change.
    @Test("random mutations agree with an array, and old versions stay intact", arguments: [UInt64(1), 2, 3])
    func randomMutations(seed: UInt64) {
        randomMutations(of: Weighted.self, seed: seed)
        randomMutations(of: WideLeafWeighted.self, seed: seed)
    }

    private func randomMutations<Element: WeightedElement>(of _: Element.Type, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var tree = _Tree<Element>()
        var model: [Element] = []
        var versions: [(tree: _Tree<Element>, contents: [Element])] = []
        for step in 0..<6000 {
            // Grow for a while, then shrink, so merges and root collapses happen too.
            let growing = (step / 1500) % 2 == 0
            let operation = Int.random(in: 0..<10, using: &random)
            if model.isEmpty || (growing ? operation < 6 : operation < 2) {
                let position = Int.random(in: 0...model.count, using: &random)
                let element = Element(value: step, weight: Int.random(in: 0..<4, using: &random))
                tree.insert(element, at: position)
                model.insert(element, at: position)
            } else if operation < 8 {
                let position = Int.random(in: 0..<model.count, using: &random)
                #expect(tree.remove(at: position) == model.remove(at: position))
            } else {
                let position = Int.random(in: 0..<model.count, using: &random)
                let weight = Int.random(in: 0..<4, using: &random)
                tree.modify(at: position) { $0.weight = weight }
                model[position].weight = weight
            }
            if step % 97 == 0 { versions.append((tree, model)) }
            if step % 500 == 0 { expectTree(tree, equals: model) }
        }
        expectTree(tree, equals: model)
        for version in versions { expectTree(version.tree, equals: version.contents) }
    }

    /// Insertions at the boundary of a key and removals of the last element before one, as the storage
    /// does for its slots, against a sorted array; each reports the position it used.
    @Test("mutations by key agree with a sorted array", arguments: [UInt64(4), 5])
    func mutationsByKey(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var tree = _Tree<WideLeafWeighted>()
        var model: [WideLeafWeighted] = []
        for step in 0..<4000 {
            // Values repeat, so equal keys meet and the boundary falls after all of them.
            let value = Int.random(in: 0..<500, using: &random)
            if model.isEmpty || step % 3 != 0 {
                let element = WideLeafWeighted(value: value, weight: step % 3)
                let position = model.firstIndex { $0.value > value } ?? model.count
                #expect(tree.insert(element, atBoundaryOf: { $0 > value }) == position)
                model.insert(element, at: position)
            } else {
                let target = model[Int.random(in: 0..<model.count, using: &random)].value
                let position = model.lastIndex { $0.value <= target }!
                let removed = tree.removeLast(before: { $0 > target })
                #expect(removed.position == position && removed.element == model.remove(at: position))
            }
        }
        expectTree(tree, equals: model)
    }

    @Test(
        "bulk building gives a valid tree for every size up to three levels",
        arguments: [0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4095, 4096, 4097, 70000])
    func bulkBuild(size: Int) {
        let elements = (0..<size).map { Weighted(value: $0, weight: $0 % 3) }
        expectTree(_Tree(sorted: elements), equals: elements)
        let wide = (0..<size).map { WideLeafWeighted(value: $0, weight: $0 % 3) }
        expectTree(_Tree(sorted: wide), equals: wide)
    }

    @Test("searches by key and by weight")
    func searches() {
        let elements = (0..<5000).map { Weighted(value: $0 * 2, weight: $0 % 3) }
        let tree = _Tree(sorted: elements)
        for probe in [-1, 0, 1, 2, 3, 4999, 5000, 9998, 9999, 20000] {
            #expect(
                tree.partitioningIndex { $0 >= probe } == elements.firstIndex { $0.value >= probe } ?? elements.count)
        }
        var covered = 0
        for (position, element) in elements.enumerated() {
            #expect(tree.weight(before: position) == covered)
            for remainder in 0..<element.weight {
                let found = tree.position(ofWeight: covered + remainder)
                #expect(found.position == position && found.remainder == remainder)
            }
            covered += element.weight
        }
    }

    private func expectTree<Element: WeightedElement>(
        _ tree: _Tree<Element>, equals model: [Element], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        tree._checkInvariants(keysAreEqual: ==)
        #expect(Array(tree) == model, sourceLocation: sourceLocation)
        #expect(tree.count == model.count, sourceLocation: sourceLocation)
        #expect(tree.weight == model.reduce(0) { $0 + $1.weight }, sourceLocation: sourceLocation)
        if !model.isEmpty {
            for position in Set([0, model.count / 2, model.count - 1]) {
                #expect(tree[position] == model[position], sourceLocation: sourceLocation)
            }
        }
    }
}
