/// The abbreviations of the first two sort keys packed into one `UInt64`, so that a slot keeps its 16
/// bytes and a sort like `[priority, id]`, whose first key ties almost always, still compares slots
/// without looking up entities.
///
/// Each abbreviation becomes an order-preserving prefix code that leaves out the run of leading bits
/// most values share: an 8-bit header (the top two bits of the value and the length of the run of
/// bits equal to the second one that starts there) and then the bits after the run and the bit that
/// ends it. A small signed number (`1000…0101` abbreviated), a small unsigned one (`0000…0101`) or
/// either reversed (`0111…1010`, `1111…1010`) takes 8 bits plus its significant bits, less one; the
/// priority 9 takes 11 bits, an id below a million 27. The two codes are concatenated from the top bit
/// and cut at 64.
///
/// Comparing packed pairs as integers compares them lexicographically, as bit strings: codes of
/// different first keys differ at or before the end of the shorter one, which is no prefix of the other,
/// in the order of the keys; equal first codes leave the second ones to decide. Cutting keeps that
/// order, and when a pair's codes fit in 64 bits, an equal packed pair holds the same two keys: the
/// pair's codes are a whole word of the concatenated code, which no other pair's codes begin with.
@usableFromInline enum _PairAbbreviation {
    /// The length of a code's header.
    static var headerBits: Int { 8 }

    /// `first` and `second`, two abbreviations, packed.
    ///
    /// Not inlinable, like ``isComplete(_:)``: inlined, their code made ``_SortRule/abbreviate(_:)`` too
    /// large to inline for every sort, and a single-key sort paid a call and a copy of the entity.
    @usableFromInline static func pack(_ first: UInt64, _ second: UInt64) -> UInt64 {
        var packer = Packer()
        packer.append(first)
        packer.append(second)
        return packer.packed
    }

    /// Whether both codes of `packed` fit in it, so that another packed pair equal to it holds the same
    /// two abbreviations.
    @usableFromInline static func isComplete(_ packed: UInt64) -> Bool {
        let firstLength = headerBits + payloadLength(header: packed &>> 56)
        guard firstLength + headerBits <= 64 else { return false }
        let secondHeader = (packed &>> UInt64(64 - firstLength - headerBits)) & 0xFF
        return firstLength + headerBits + payloadLength(header: secondHeader) <= 64
    }

    /// The header of `value`'s code: its top two bits, then the length of the run of bits equal to the
    /// second one that starts there (1 to 63), counted down when the run is of zeros so that a longer
    /// run, a smaller value, has a smaller header.
    static func header(of value: UInt64) -> UInt64 {
        let top = value &>> 62
        let runIsOfOnes = top & 1 == 1
        // The bits after the top one, the run first, turned to zeros if it is of ones; the low bit is 0
        // before the turn, so a run of zeros stops at 63.
        let rest = value &<< 1
        let run = UInt64(Swift.min((runIsOfOnes ? ~rest : rest).leadingZeroBitCount, 63))
        return top &<< 6 | (runIsOfOnes ? run : 63 &- run)
    }

    /// The number of bits after the header in a code: those after the run and the bit that ends it.
    static func payloadLength(header: UInt64) -> Int {
        let runIsOfOnes = header & 0x40 != 0
        let run = runIsOfOnes ? Int(header & 63) : 63 &- Int(header & 63)
        return Swift.max(62 &- run, 0)
    }

    /// Codes concatenated from the top bit, cut at 64 bits.
    struct Packer {
        var packed: UInt64 = 0
        var used = 0

        /// Appends the code of `value`.
        mutating func append(_ value: UInt64) {
            let header = _PairAbbreviation.header(of: value)
            let length = _PairAbbreviation.payloadLength(header: header)
            append(header, length: _PairAbbreviation.headerBits)
            append(value & ((1 &<< UInt64(length)) &- 1), length: length)
        }

        /// Appends the low `length` bits of `bits`, whose higher bits are zero, as far as they fit.
        mutating func append(_ bits: UInt64, length: Int) {
            let free = 64 &- used
            used &+= length
            guard free > 0, length > 0 else { return }
            packed |= length <= free ? bits &<< UInt64(free &- length) : bits &>> UInt64(length &- free)
        }
    }
}
