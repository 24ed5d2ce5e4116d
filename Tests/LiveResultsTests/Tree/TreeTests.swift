import LiveResultsTesting
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

/// An object whose lifetime a test follows through weak references.
private final class Token: Sendable {}

private struct WeakToken {
    weak var token: Token?
}

/// An element holding a ``Token``, in leaves of 4: copies, splits and merges of leaves meet often.
private struct TrackedElement: _TreeElement {
    let value: Int
    let token = Token()
    var treeKey: Int { value }
    var treeWeight: Int { 1 }
    static var treeNodeCapacity: Int { 4 }
}

/// An element whose key holds a reference, so that freeing an internal node must destroy the keys of
/// its children, not only release the child nodes.
private struct TrackedKeyElement: _TreeElement {
    struct Key: Sendable {
        let value: Int
        let token = Token()
    }

    let treeKey: Key
    var treeWeight: Int { 1 }
    static var treeNodeCapacity: Int { 4 }
}

/// An element aligned to 16 bytes, more than a node's children.
private struct WideElement: _TreeElement, Equatable {
    var bits: SIMD4<Float>
    var treeKey: Float { bits.x }
    var treeWeight: Int { 1 }
    static var treeNodeCapacity: Int { 4 }
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

    /// Nodes copy their elements for a mutation under a snapshot, and move them when they split or
    /// merge: each element must be released once, when no version holds it any longer.
    @Test("an element is released once no version holds it, and only then")
    func lifetimes() {
        var watched: [WeakToken] = []
        func tracked(_ value: Int) -> TrackedElement {
            let element = TrackedElement(value: value)
            watched.append(WeakToken(token: element.token))
            return element
        }
        func liveCount() -> Int { watched.count { $0.token != nil } }

        var random = SeededGenerator(seed: 8)
        var tree = _Tree(sorted: (0..<300).map(tracked))
        var versions: [_Tree<TrackedElement>] = []
        for step in 0..<3000 {
            // Shrink now and then, so that leaves merge and borrow as well as split.
            if tree.count > 0 && (step / 500) % 2 == 1 {
                tree.remove(at: Int.random(in: 0..<tree.count, using: &random))
            } else {
                tree.insert(tracked(step), at: Int.random(in: 0...tree.count, using: &random))
            }
            if step % 250 == 0 { versions.append(tree) }
        }
        let held = Set((versions + [tree]).flatMap { $0.map { ObjectIdentifier($0.token) } })
        #expect(liveCount() == held.count)
        versions.removeAll()
        #expect(liveCount() == tree.count)
        tree = _Tree()
        #expect(liveCount() == 0)
    }

    @Test("keys that hold references are released with the last node that holds them")
    func keyLifetimes() {
        var watched: [WeakToken] = []
        var random = SeededGenerator(seed: 9)
        var tree = _Tree<TrackedKeyElement>()
        var versions: [_Tree<TrackedKeyElement>] = []
        for step in 0..<2000 {
            if tree.count > 0 && (step / 400) % 2 == 1 {
                tree.remove(at: Int.random(in: 0..<tree.count, using: &random))
            } else {
                let element = TrackedKeyElement(treeKey: .init(value: step))
                watched.append(WeakToken(token: element.treeKey.token))
                tree.insert(element, at: Int.random(in: 0...tree.count, using: &random))
            }
            if step % 300 == 0 { versions.append(tree) }
        }
        versions.removeAll()
        #expect(watched.count { $0.token != nil } == tree.count)
        tree = _Tree()
        #expect(watched.allSatisfy { $0.token == nil })
    }

    @Test("elements aligned beyond a child stay aligned")
    func wideElements() {
        func element(_ value: Int) -> WideElement { WideElement(bits: SIMD4(repeating: Float(value))) }
        var tree = _Tree(sorted: (0..<100).map(element))
        var model = (0..<100).map(element)
        let snapshot = tree
        for value in 100..<300 {
            let position = value * 7 % (model.count + 1)
            tree.insert(element(value), at: position)
            model.insert(element(value), at: position)
        }
        for step in 0..<150 {
            #expect(tree.remove(at: step * 3 % model.count) == model.remove(at: step * 3 % model.count))
        }
        tree._checkInvariants(keysAreEqual: ==)
        #expect(Array(tree) == model)
        #expect(Array(snapshot) == (0..<100).map(element))
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
