/// Numbers the distinct section names of a bulk build, in order of appearance.
///
/// Hashing a `String` costs about 40 ns, a tenth of a fetch at a million entities. The entities of a
/// section usually hold identical strings (short names are stored inline; long ones usually share one
/// buffer), so a small cache of the strings' bits answers most lookups, and only the others hash. Equal
/// bits mean equal strings as long as the string whose bits are cached stays alive, which the cache
/// ensures by keeping it: its buffer cannot be freed and reused by another string meanwhile.
@usableFromInline struct _SectionNameTable {
    /// The names, by number.
    @usableFromInline var names: [String] = []
    @usableFromInline var numbers: [String: UInt32] = [:]
    @usableFromInline var cache: [CacheEntry]

    @usableFromInline struct CacheEntry {
        @usableFromInline var bits: (UInt64, UInt64)
        /// Kept alive so that no other string can have its bits.
        @usableFromInline var name: String
        @usableFromInline var number: UInt32

        @usableFromInline
        init(bits: (UInt64, UInt64), name: String, number: UInt32) {
            self.bits = bits
            self.name = name
            self.number = number
        }
    }

    @usableFromInline static var cacheSize: Int { 256 }
    @usableFromInline static var empty: UInt32 { .max }

    @inlinable init() {
        cache = Array(repeating: CacheEntry(bits: (0, 0), name: "", number: Self.empty), count: Self.cacheSize)
    }

    /// The number of `name`, numbering it if it is new.
    @inlinable mutating func number(of name: String) -> UInt32 {
        guard MemoryLayout<String>.size == 16 else { return lookUp(name) }
        let bits = withUnsafeBytes(of: name) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
        return number(ofBits: bits) { name }
    }

    /// The number of the name stored at `offset` in `root` (a `String` property's offset): the name's
    /// bits are read there, and the name itself only when they are not cached, so that most entities
    /// cost neither a copy of the string nor a call.
    @inlinable mutating func number<Root>(ofNameIn root: Root, at offset: Int) -> UInt32 {
        guard MemoryLayout<String>.size == 16 else {
            return lookUp(_FieldAccess.read(root, at: offset, as: String.self))
        }
        let bits = withUnsafePointer(to: root) { pointer in
            let field = UnsafeRawPointer(pointer) + offset
            return (field.load(as: UInt64.self), field.load(fromByteOffset: 8, as: UInt64.self))
        }
        return number(ofBits: bits) { _FieldAccess.read(root, at: offset, as: String.self) }
    }

    /// The number of the string whose bits are `bits`: `name` makes that string.
    @inlinable mutating func number(ofBits bits: (UInt64, UInt64), name: () -> String) -> UInt32 {
        let mixed = (bits.0 &* 0x9E37_79B9_7F4A_7C15) ^ (bits.1 &* 0xC2B2_AE3D_27D4_EB4F)
        let slot = Int(truncatingIfNeeded: mixed >> 56)
        if cache[slot].number != Self.empty && cache[slot].bits == bits { return cache[slot].number }
        let name = name()
        let number = lookUp(name)
        cache[slot] = CacheEntry(bits: bits, name: name, number: number)
        return number
    }

    @inlinable mutating func lookUp(_ name: String) -> UInt32 {
        if let number = numbers[name] { return number }
        let number = UInt32(names.count)
        names.append(name)
        numbers[name] = number
        return number
    }
}
