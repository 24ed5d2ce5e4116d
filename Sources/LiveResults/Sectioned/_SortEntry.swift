/// An entity to place in a bulk build: the rank of its section, its abbreviated sort key, and where it
/// is in the input. Sixteen bytes, so that sorting moves little memory.
@usableFromInline struct _SortEntry: Sendable {
    @usableFromInline var key: UInt64
    @usableFromInline var section: UInt32
    @usableFromInline var index: UInt32

    @usableFromInline
    init(key: UInt64, section: UInt32, index: UInt32) {
        self.key = key
        self.section = section
        self.index = index
    }
}
