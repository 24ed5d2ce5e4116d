import NIOCore

/// One message of the `pgoutput` plugin, protocol version 1, as `pg_logical_slot_peek_binary_changes` returns
/// it in its `data` column (PostgreSQL's *Logical Replication Message Formats*).
///
/// Only what the feed uses is kept: a transaction's xid and end, each relation's columns, and each row's
/// columns in their text form. `Origin`, `Type` and `Message` are read as ``ignored``: the feed needs none of them.
enum _PgOutputMessage: Equatable, Sendable {
    /// One column of a tuple: `NULL`, a TOASTed value the update left as it was (not sent), or the value's text.
    enum Column: Equatable, Sendable {
        case null
        case unchangedToast
        case text(String)
    }

    /// A relation's description, sent before its first row in each decoding session.
    struct Relation: Equatable, Sendable {
        struct Column: Equatable, Sendable {
            let name: String
            let typeOID: UInt32
            /// Whether the column is part of the replica identity (the primary key by default).
            let isKey: Bool
            /// How a row decoder reads the column's text, found once here rather than for each row.
            let kind: _RowColumns.Kind

            init(name: String, typeOID: UInt32, isKey: Bool) {
                (self.name, self.typeOID, self.isKey) = (name, typeOID, isKey)
                kind = _RowColumns.Kind(typeOID: typeOID)
            }
        }

        var oid: UInt32
        var schema: String
        var name: String
        var columns: [Column]
    }

    /// `B`: the transaction's xid (32 bits: the Begin message has no epoch), and the position of its commit
    /// record: a transaction whose commit record lies before the end of one already delivered was delivered too.
    case begin(xid: UInt32, finalLSN: UInt64)
    /// `C`: the end of the commit record, the position to confirm once the transaction is delivered.
    case commit(endLSN: UInt64)
    /// `R`
    case relation(Relation)
    /// `I`
    case insert(relation: UInt32, new: [Column])
    /// `U`: `old` is the replica identity's columns (or the whole old row), when the key changed.
    case update(relation: UInt32, old: [Column]?, new: [Column])
    /// `D`: `old` is the replica identity's columns (or the whole old row with `REPLICA IDENTITY FULL`).
    case delete(relation: UInt32, old: [Column])
    /// `T`
    case truncate(relations: [UInt32])
    /// `O`, `Y`, `M`: nothing the feed uses.
    case ignored

    /// A message that does not read as protocol version 1 describes it.
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads one message, the whole of `buffer`.
    static func read(_ buffer: inout ByteBuffer) throws(Malformed) -> _PgOutputMessage {
        guard let tag = buffer.readInteger(as: UInt8.self) else { throw Malformed(description: "an empty message") }
        switch tag {
        case UInt8(ascii: "B"):
            // final LSN, commit time, xid
            guard let final = buffer.readInteger(as: UInt64.self), buffer.readInteger(as: Int64.self) != nil,
                let xid = buffer.readInteger(as: UInt32.self)
            else { throw truncated("Begin") }
            return .begin(xid: xid, finalLSN: final)
        case UInt8(ascii: "C"):
            // flags, commit LSN, end LSN, commit time
            guard buffer.readInteger(as: UInt8.self) != nil, buffer.readInteger(as: UInt64.self) != nil,
                let end = buffer.readInteger(as: UInt64.self)
            else { throw truncated("Commit") }
            return .commit(endLSN: end)
        case UInt8(ascii: "R"):
            return .relation(try readRelation(&buffer))
        case UInt8(ascii: "I"):
            guard let relation = buffer.readInteger(as: UInt32.self), buffer.readInteger(as: UInt8.self) == 78  // N
            else { throw truncated("Insert") }
            return .insert(relation: relation, new: try readTuple(&buffer))
        case UInt8(ascii: "U"):
            guard let relation = buffer.readInteger(as: UInt32.self), var kind = buffer.readInteger(as: UInt8.self)
            else { throw truncated("Update") }
            var old: [Column]?
            if kind == UInt8(ascii: "K") || kind == UInt8(ascii: "O") {
                old = try readTuple(&buffer)
                guard let next = buffer.readInteger(as: UInt8.self) else { throw truncated("Update") }
                kind = next
            }
            guard kind == UInt8(ascii: "N") else { throw Malformed(description: "an Update without its new tuple") }
            return .update(relation: relation, old: old, new: try readTuple(&buffer))
        case UInt8(ascii: "D"):
            guard let relation = buffer.readInteger(as: UInt32.self), let kind = buffer.readInteger(as: UInt8.self),
                kind == UInt8(ascii: "K") || kind == UInt8(ascii: "O")
            else { throw truncated("Delete") }
            return .delete(relation: relation, old: try readTuple(&buffer))
        case UInt8(ascii: "T"):
            guard let count = buffer.readInteger(as: UInt32.self), buffer.readInteger(as: UInt8.self) != nil else {
                throw truncated("Truncate")
            }
            var relations: [UInt32] = []
            for _ in 0..<count {
                guard let relation = buffer.readInteger(as: UInt32.self) else { throw truncated("Truncate") }
                relations.append(relation)
            }
            return .truncate(relations: relations)
        case UInt8(ascii: "O"), UInt8(ascii: "Y"), UInt8(ascii: "M"):
            return .ignored
        default:
            throw Malformed(description: "an unknown pgoutput message type \(tag)")
        }
    }

    private static func readRelation(_ buffer: inout ByteBuffer) throws(Malformed) -> Relation {
        guard let oid = buffer.readInteger(as: UInt32.self), let schema = buffer.readNullTerminatedString(),
            let name = buffer.readNullTerminatedString(), buffer.readInteger(as: UInt8.self) != nil,
            let count = buffer.readInteger(as: UInt16.self)
        else { throw truncated("Relation") }
        var columns: [Relation.Column] = []
        columns.reserveCapacity(Int(count))
        for _ in 0..<count {
            // flags (1: part of the key), name, type, type modifier
            guard let flags = buffer.readInteger(as: UInt8.self), let column = buffer.readNullTerminatedString(),
                let type = buffer.readInteger(as: UInt32.self), buffer.readInteger(as: Int32.self) != nil
            else { throw truncated("Relation") }
            columns.append(Relation.Column(name: column, typeOID: type, isKey: flags & 1 != 0))
        }
        return Relation(oid: oid, schema: schema, name: name, columns: columns)
    }

    private static func readTuple(_ buffer: inout ByteBuffer) throws(Malformed) -> [Column] {
        guard let count = buffer.readInteger(as: UInt16.self) else { throw truncated("TupleData") }
        var columns: [Column] = []
        columns.reserveCapacity(Int(count))
        for _ in 0..<count {
            switch buffer.readInteger(as: UInt8.self) {
            case UInt8(ascii: "n"): columns.append(.null)
            case UInt8(ascii: "u"): columns.append(.unchangedToast)
            case UInt8(ascii: "t"):
                guard let length = buffer.readInteger(as: UInt32.self),
                    let text = buffer.readString(length: Int(length))
                else { throw truncated("TupleData") }
                columns.append(.text(text))
            default:
                // 'b' (binary) only comes with the `binary` option, which the feed does not ask for.
                throw Malformed(description: "a tuple column of an unknown kind")
            }
        }
        return columns
    }

    private static func truncated(_ message: String) -> Malformed {
        Malformed(description: "a truncated \(message) message")
    }
}
