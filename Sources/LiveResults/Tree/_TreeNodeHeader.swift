/// The header of a ``_TreeNode``: the summary of its subtree that searches read instead of scanning
/// below it, what its tail holds, and what the node's deinit needs to know of the element type.
///
/// Not generic, and the first key is not kept here (it is the first element's or child's): the deinit
/// of a generic class runs unspecialized, and reading a generic header there looked its type up in the
/// runtime's metadata caches on every node freed, about a twentieth of an event that frees a snapshot.
@usableFromInline struct _TreeNodeHeader {
    /// The number of elements in the subtree.
    @usableFromInline var count: Int
    /// The sum of the weights of the elements in the subtree.
    @usableFromInline var weight: Int
    /// The number of elements (leaf) or children (internal node) initialized in the tail.
    @usableFromInline var width: Int
    /// The number of levels below the node: 0 for a leaf, whose tail holds elements rather than children.
    /// A node's height never changes (a B+tree grows and shrinks at the root), so a descent knows from a
    /// node whether its children are leaves before it reads them.
    @usableFromInline var height: UInt8
    /// Whether a child is a node reference and plain data: freeing a node then only releases the
    /// references.
    @usableFromInline var childrenAreReferencesAndData: Bool
    /// The bytes from the start of the tail to the first element or child, for their alignment.
    @usableFromInline var tailPadding: UInt8
    /// The stride of a child, for the deinit.
    @usableFromInline var childStride: UInt16

    @inlinable init(
        height: UInt8, childrenAreReferencesAndData: Bool, tailPadding: UInt8, childStride: UInt16
    ) {
        self.count = 0
        self.weight = 0
        self.width = 0
        self.height = height
        self.childrenAreReferencesAndData = childrenAreReferencesAndData
        self.tailPadding = tailPadding
        self.childStride = childStride
    }

    @inlinable var isLeaf: Bool { height == 0 }
}
