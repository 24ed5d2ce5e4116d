/// A persistent, counted B+tree: elements in order, with O(log *n*) access by position, insertion,
/// removal, search by key and search by weight.
///
/// Copies share all nodes (an O(1) snapshot); a mutation copies only the nodes on its path that are
/// shared, so a mutation costs O(log *n*) whether or not older versions are alive.
@usableFromInline struct _Tree<Element: _TreeElement>: @unchecked Sendable {
    // @unchecked Sendable: the elements are `Sendable`, and a node is mutated only while uniquely
    // referenced (the tree checks `isKnownUniquelyReferenced` before every write and copies otherwise),
    // so a node reachable from more than one tree, or from another thread, is never written again.

    @usableFromInline var root: _TreeNode<Element>?

    @inlinable init() {}

    /// A tree of elements already in order.
    ///
    /// - Complexity: O(*n*).
    @inlinable init(sorted elements: some Sequence<Element>) {
        root = Self.root(over: Self.leaves(of: ContiguousArray(elements)))
    }

    /// The root of a tree whose leaves, in order, are `leaves`: the internal levels, built bottom up.
    @inlinable static func root(over leaves: [_TreeNode<Element>]) -> _TreeNode<Element>? {
        var (level, height) = (leaves, UInt8(0))
        while level.count > 1 {
            height += 1
            level = partition(level, capacity: _TreeNode<Element>.branchCapacity).map { [height] in
                _TreeNode.branch($0.lazy.map(_TreeChild.init), height: height)
            }
        }
        return level.first
    }

    @inlinable static func leaves(of elements: ContiguousArray<Element>) -> [_TreeNode<Element>] {
        partition(elements, capacity: _TreeNode<Element>.leafCapacity).map(_TreeNode.leaf)
    }

    /// Cuts `items` into the fewest runs of at most `capacity`, of near-equal lengths (so none is below
    /// the minimum unless there is only one).
    @inlinable static func partition<C: RandomAccessCollection>(_ items: C, capacity: Int) -> [C.SubSequence]
    where C.Index == Int {
        guard !items.isEmpty else { return [] }
        let runs = (items.count + capacity - 1) / capacity
        return (0..<runs).map { run in
            let lower = items.startIndex + items.count * run / runs
            let upper = items.startIndex + items.count * (run + 1) / runs
            return items[lower..<upper]
        }
    }

    @inlinable var count: Int { root?.count ?? 0 }
    @inlinable var weight: Int { root?.weight ?? 0 }
    @inlinable var isEmpty: Bool { root == nil }

    /// Yields the element in place: a read of one of its properties (a section's name or count) copies
    /// nothing, where returning the element would retain everything it references.
    ///
    /// - Complexity: O(log *n*).
    @inlinable subscript(position: Int) -> Element {
        _read {
            precondition(position >= 0 && position < count, "position out of range")
            let end = end(of: .position(position, forInsertion: false), isPast: _TreeRoute.unused)
            yield end.elements[end.index]
        }
    }

    /// The number of leading elements whose key does not satisfy `isAtOrAfter`, for a predicate that is
    /// false for a prefix of the elements and true for the rest.
    ///
    /// - Complexity: O(log *n*) calls of the predicate.
    @inlinable @inline(__always) func partitioningIndex(where isAtOrAfter: (Element.Key) -> Bool) -> Int {
        guard root != nil else { return 0 }
        let end = end(of: .boundary(forInsertion: true), isPast: isAtOrAfter)
        return end.before + end.index
    }

    /// Where a read-only `route` ends: the leaf's elements, the index in them, and the number of
    /// elements before the leaf. The tree must not be empty.
    ///
    /// The descent takes no references, since the tree holds the path while the caller reads (a method
    /// called even through an `unowned(unsafe)` variable retains and releases the node: an atomic write
    /// to a line mostly out of the cache), and the leaf comes as its buffer, a view of raw pointers
    /// valid while the tree is unchanged.
    ///
    /// Always inlined, with ``partitioningIndex(where:)`` and the route's steps: left to the optimizer,
    /// whether they were inlined into the storage's searches changed with unrelated code, and as calls
    /// (the predicate then a closure call per comparison) they cost 8% more instructions per event.
    @inlinable @inline(__always) func end(
        of route: _TreeRoute, isPast: (Element.Key) -> Bool
    ) -> (elements: _TreeNodeBuffer<Element>, index: Int, before: Int) {
        var (node, route, before) = (Unmanaged.passUnretained(root!), route, 0)
        while true {
            let step: (child: Unmanaged<_TreeNode<Element>>, before: Int, route: _TreeRoute)? =
                node._withUnsafeGuaranteedRef { node in
                    guard !node.isLeaf else { return nil }
                    let child = route.child(of: node, isPast: isPast)
                    node.prefetch(childAt: child.index)
                    return (Unmanaged.passUnretained(node.children[child.index].node), child.before, child.route)
                }
            guard let step else {
                return node._withUnsafeGuaranteedRef { leaf in
                    (leaf.elements, route.index(in: leaf, isPast: isPast), before)
                }
            }
            (node, route) = (step.child, step.route)
            before += step.before
        }
    }

    /// The sum of the weights of the elements before `position`.
    ///
    /// - Complexity: O(log *n*).
    @inlinable func weight(before position: Int) -> Int {
        guard var node = root else { return 0 }
        var offset = position
        var total = 0
        while !node.isLeaf {
            let child = node.child(containing: offset, forInsertion: true)
            for index in 0..<child.index { total += node.children[index].weight }
            node = node.children[child.index].node
            offset = child.offset
        }
        for index in 0..<offset { total += node.elements[index].treeWeight }
        return total
    }

    /// The element covering weight `target` (elements cover consecutive ranges of their weights), and
    /// how far into its weight `target` is.
    ///
    /// - Complexity: O(log *n*).
    @inlinable func position(ofWeight target: Int) -> (position: Int, remainder: Int) {
        precondition(target >= 0 && target < weight, "weight out of range")
        var node = root!
        var remaining = target
        var position = 0
        while !node.isLeaf {
            for child in node.children {
                if remaining < child.weight {
                    node = child.node
                    break
                }
                remaining -= child.weight
                position += child.count
            }
        }
        for element in node.elements {
            if remaining < element.treeWeight { break }
            remaining -= element.treeWeight
            position += 1
        }
        return (position, remaining)
    }

    /// - Complexity: O(log *n*).
    @inlinable mutating func insert(_ element: Element, at position: Int) {
        precondition(position >= 0 && position <= count, "position out of range")
        insert(element, along: .position(position, forInsertion: true), isPast: _TreeRoute.unused)
    }

    /// Inserts `element` at the boundary of `isAtOrAfter`, a predicate on keys that is false for a prefix
    /// of the elements and true for the rest.
    ///
    /// - Returns: The position of the inserted element.
    /// - Complexity: O(log *n*) calls of the predicate, in one descent.
    @discardableResult
    @inlinable mutating func insert(_ element: Element, atBoundaryOf isAtOrAfter: (Element.Key) -> Bool) -> Int {
        insert(element, along: .boundary(forInsertion: true), isPast: isAtOrAfter)
    }

    @discardableResult
    @inlinable mutating func insert(
        _ element: Element, along route: _TreeRoute, isPast: (Element.Key) -> Bool
    ) -> Int {
        guard root != nil else {
            root = _TreeNode.leaf(CollectionOfOne(element))
            return 0
        }
        let (position, sibling) = Self.insert(element, along: route, isPast: isPast, into: &root!)
        if let sibling {
            root = _TreeNode.branch([_TreeChild(root!), _TreeChild(sibling)], height: sibling.height + 1)
        }
        return position
    }

    /// Inserts into the subtree, returning where, and a new right sibling when the node split.
    @inlinable static func insert(
        _ element: Element,
        along route: _TreeRoute,
        isPast: (Element.Key) -> Bool,
        into node: inout _TreeNode<Element>
    ) -> (position: Int, sibling: _TreeNode<Element>?) {
        _TreeNode.makeUnique(&node)
        node.count += 1
        node.weight += element.treeWeight
        let position: Int
        if node.isLeaf {
            position = route.index(in: node, isPast: isPast)
            node.elements.insert(element, at: position)
        } else {
            let child = route.child(of: node, isPast: isPast)
            node.prefetch(childAt: child.index)
            let inserted = insert(element, along: child.route, isPast: isPast, into: &node.children[child.index].node)
            node.children[child.index].refresh()
            if let sibling = inserted.sibling { node.children.insert(_TreeChild(sibling), at: child.index + 1) }
            position = child.before + inserted.position
        }
        return (position, node.width > node.maximumWidth ? node.split() : nil)
    }

    /// - Complexity: O(log *n*).
    @discardableResult
    @inlinable mutating func remove(at position: Int) -> Element {
        precondition(position >= 0 && position < count, "position out of range")
        return remove(along: .position(position, forInsertion: false), isPast: _TreeRoute.unused).element
    }

    /// Removes the last element before the boundary of `isPast`, a predicate on keys that is false for a
    /// prefix of the elements and true for the rest: the element whose key is the last for which it is
    /// false.
    ///
    /// - Precondition: Some element's key makes `isPast` false.
    /// - Returns: The position the element had, and the element.
    /// - Complexity: O(log *n*) calls of the predicate, in one descent.
    @inlinable mutating func removeLast(before isPast: (Element.Key) -> Bool) -> (position: Int, element: Element) {
        remove(along: .boundary(forInsertion: false), isPast: isPast)
    }

    @inlinable mutating func remove(
        along route: _TreeRoute, isPast: (Element.Key) -> Bool
    ) -> (position: Int, element: Element) {
        let removed = Self.remove(along: route, isPast: isPast, from: &root!)
        if root!.width == 0 {
            root = nil
        } else if !root!.isLeaf && root!.children.count == 1 {
            root = root!.children[0].node
        }
        return removed
    }

    @inlinable static func remove(
        along route: _TreeRoute,
        isPast: (Element.Key) -> Bool,
        from node: inout _TreeNode<Element>
    ) -> (position: Int, element: Element) {
        _TreeNode.makeUnique(&node)
        let removed: (position: Int, element: Element)
        if node.isLeaf {
            let index = route.index(in: node, isPast: isPast)
            precondition(index >= 0, "no element to remove before the boundary")
            removed = (index, node.elements.remove(at: index))
        } else {
            let child = route.child(of: node, isPast: isPast)
            node.prefetch(childAt: child.index)
            let inner = remove(along: child.route, isPast: isPast, from: &node.children[child.index].node)
            removed = (child.before + inner.position, inner.element)
            node.children[child.index].refresh()
            if node.children[child.index].node.width < node.children[child.index].node.minimumWidth {
                rebalance(child: child.index, of: node)
            }
        }
        node.count -= 1
        node.weight -= removed.element.treeWeight
        return removed
    }

    /// Refills an underfull child from a sibling, or merges the two. Only the two siblings, made unique
    /// first, are written.
    @inlinable static func rebalance(child index: Int, of parent: _TreeNode<Element>) {
        let left = index > 0 ? index - 1 : index
        _TreeNode.makeUnique(&parent.children[left].node)
        _TreeNode.makeUnique(&parent.children[left + 1].node)
        let (first, second) = (parent.children[left].node, parent.children[left + 1].node)
        defer { parent.children[left].refresh() }
        if first.width + second.width <= first.maximumWidth {
            if first.isLeaf {
                second.elements.moveSuffix(from: 0, appendingTo: first.elements)
            } else {
                second.children.moveSuffix(from: 0, appendingTo: first.children)
            }
            parent.children.remove(at: left + 1)
            first.refreshSummary()
            return
        }
        defer { parent.children[left + 1].refresh() }
        if first.width > second.width {
            if first.isLeaf {
                second.elements.insert(first.elements.removeLast(), at: 0)
            } else {
                second.children.insert(first.children.removeLast(), at: 0)
            }
        } else if first.isLeaf {
            first.elements.append(second.elements.removeFirst())
        } else {
            first.children.append(second.children.removeFirst())
        }
        first.refreshSummary()
        second.refreshSummary()
    }

    /// Changes the element at `position` in place. The change must keep the element's place in the
    /// order; its weight may change.
    ///
    /// - Complexity: O(log *n*).
    @discardableResult
    @inlinable mutating func modify<Result>(at position: Int, _ body: (inout Element) -> Result) -> Result {
        precondition(position >= 0 && position < count, "position out of range")
        return Self.modify(at: position, in: &root!, body).result
    }

    @inlinable static func modify<Result>(
        at position: Int,
        in node: inout _TreeNode<Element>,
        _ body: (inout Element) -> Result
    ) -> (result: Result, weightChange: Int) {
        _TreeNode.makeUnique(&node)
        let outcome: (result: Result, weightChange: Int)
        if node.isLeaf {
            let before = node.elements[position].treeWeight
            let result = body(&node.elements[position])
            outcome = (result, node.elements[position].treeWeight - before)
        } else {
            let child = node.child(containing: position)
            outcome = modify(at: child.offset, in: &node.children[child.index].node, body)
            node.children[child.index].refresh()
        }
        node.weight += outcome.weightChange
        return outcome
    }
}

extension _Tree: Sequence {
    /// Walks the leaves in order.
    @usableFromInline struct Iterator: IteratorProtocol {
        @usableFromInline var path: [(node: _TreeNode<Element>, next: Int)] = []

        @inlinable init(root: _TreeNode<Element>?) {
            if let root { descend(from: root) }
        }

        /// An iterator whose first element is the one at `position` (none when `position` is the count).
        ///
        /// - Complexity: O(log *n*): one descent by the children's counts.
        @inlinable init(root: _TreeNode<Element>?, from position: Int) {
            guard var node = root else { return }
            var offset = position
            while !node.isLeaf {
                var index = 0
                let children = node.children
                while index < children.count - 1 && offset >= children[index].count {
                    offset -= children[index].count
                    index += 1
                }
                path.append((node, index + 1))
                node = children[index].node
            }
            path.append((node, offset))
        }

        @inlinable mutating func descend(from node: _TreeNode<Element>) {
            var node = node
            while !node.isLeaf {
                path.append((node, 1))
                node = node.children[0].node
            }
            path.append((node, 0))
        }

        @inlinable mutating func next() -> Element? {
            while let last = path.last {
                if last.node.isLeaf {
                    if last.next < last.node.elements.count {
                        path[path.count - 1].next += 1
                        return last.node.elements[last.next]
                    }
                } else if last.next < last.node.children.count {
                    path[path.count - 1].next += 1
                    descend(from: last.node.children[last.next].node)
                    continue
                }
                path.removeLast()
            }
            return nil
        }
    }

    @inlinable func makeIterator() -> Iterator { Iterator(root: root) }

    /// An iterator from the element at `position` on.
    ///
    /// - Complexity: O(log *n*).
    @inlinable func makeIterator(from position: Int) -> Iterator { Iterator(root: root, from: position) }

    @inlinable var underestimatedCount: Int { count }
}
