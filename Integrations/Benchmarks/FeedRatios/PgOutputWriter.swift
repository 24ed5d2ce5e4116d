import Foundation
import NIOCore

/// The `pgoutput` messages PostgreSQL 15 sends, with `proto_version '1'`, for single-row updates of `todos`
/// committed one per transaction: Relation once (in the first transaction, before its first row), then Begin,
/// Update and Commit per transaction, each message the bytes of a row of `pg_logical_slot_peek_binary_changes`
/// (PostgreSQL's *Logical Replication Message Formats*). The table's replica identity is its primary key, which
/// an update leaves as it was: the Update message carries the new row alone.
struct PgOutputWriter {
    /// `todos`' OID.
    static let relation: UInt32 = 16_384
    /// The table's columns: name, type OID (`int8` 20, `text` 25, `int4` 23), and whether it is in the key.
    static let columns: [(name: String, type: UInt32, isKey: Bool)] = [
        ("id", 20, true), ("title", 25, false), ("project", 25, false), ("priority", 23, false),
        ("assignee_id", 20, false),
    ]

    /// The next transaction's xid.
    private var xid: UInt32 = 7_514
    /// Where the next transaction's commit record starts in the log.
    private var position: UInt64 = 0x16_B374_D848
    /// The next commit's time, in microseconds since 2000-01-01 (PostgreSQL's epoch).
    private var time: Int64 = 838_468_800_000_000
    private var describedRelation = false

    /// The messages of one transaction that updates `todo`'s row to its values.
    mutating func transaction(updating todo: Todo) -> [ByteBuffer] {
        // A single-row update's records take 128 bytes of the log before its commit record, which takes 48.
        let (transactionID, committed) = (xid, time)
        let commit = position + 128
        let end = commit + 48
        (xid, position, time) = (xid + 1, end, time + 80)
        var messages = [
            Self.message("B") {
                $0.writeInteger(commit)
                $0.writeInteger(committed)
                $0.writeInteger(transactionID)
            }
        ]
        if !describedRelation {
            describedRelation = true
            messages.append(Self.relationMessage())
        }
        messages.append(Self.updateMessage(todo))
        messages.append(
            Self.message("C") {
                $0.writeInteger(UInt8(0))  // flags
                $0.writeInteger(commit)
                $0.writeInteger(end)
                $0.writeInteger(committed)
            })
        return messages
    }

    /// A message of tag `tag`, its body written by `body`.
    private static func message(_ tag: Character, _ body: (inout ByteBuffer) -> Void) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(tag.asciiValue!)
        body(&buffer)
        return buffer
    }

    /// Relation: OID, schema, name, replica identity (`d`: the primary key), then each column's flags (1: in the
    /// key), name, type OID and type modifier (-1: none).
    static func relationMessage() -> ByteBuffer {
        message("R") { buffer in
            buffer.writeInteger(relation)
            writeString("public", to: &buffer)
            writeString("todos", to: &buffer)
            buffer.writeInteger(UInt8(ascii: "d"))
            buffer.writeInteger(UInt16(columns.count))
            for column in columns {
                buffer.writeInteger(UInt8(column.isKey ? 1 : 0))
                writeString(column.name, to: &buffer)
                buffer.writeInteger(column.type)
                buffer.writeInteger(Int32(-1))
            }
        }
    }

    /// Update: the relation's OID, then `N` and the new row (the key unchanged, no old row).
    static func updateMessage(_ todo: Todo) -> ByteBuffer {
        message("U") {
            $0.writeInteger(relation)
            $0.writeInteger(UInt8(ascii: "N"))
            writeTuple(todo, to: &$0)
        }
    }

    /// A tuple: the number of columns, then each as `t` and its text's length and bytes, or `n` for `NULL`.
    private static func writeTuple(_ todo: Todo, to buffer: inout ByteBuffer) {
        let values = [
            String(todo.id), todo.title, todo.project, String(todo.priority), todo.assigneeID.map { String($0) },
        ]
        buffer.writeInteger(UInt16(values.count))
        for value in values {
            guard let value else {
                buffer.writeInteger(UInt8(ascii: "n"))
                continue
            }
            buffer.writeInteger(UInt8(ascii: "t"))
            buffer.writeInteger(UInt32(value.utf8.count))
            buffer.writeString(value)
        }
    }

    /// A NUL-terminated string.
    private static func writeString(_ string: String, to buffer: inout ByteBuffer) {
        buffer.writeString(string)
        buffer.writeInteger(UInt8(0))
    }

    /// Checks the messages against those PostgreSQL 15.18 sent for the same table and update (recorded with
    /// `pg_logical_slot_peek_binary_changes(…, 'proto_version', '1', …)`): a Relation message, and the Update of
    /// to-do 7 to `title = 'Call back about order 7, take 0', priority = 4`.
    static func checkAgainstRecording() throws {
        let recordedRelation =
            "52000040007075626c696300746f646f73006400050169640000000014ffffffff007469746c650000000019ffffffff0070"
            + "726f6a6563740000000019ffffffff007072696f726974790000000017ffffffff0061737369676e65655f69640000000014"
            + "ffffffff"
        let recordedUpdate =
            "55000040004e0005740000000137740000001f43616c6c206261636b2061626f7574206f7264657220372c2074616b652030"
            + "740000000950726f6a6563742037740000000134740000000137"
        var todo = Todo(id: 7)
        (todo.title, todo.priority) = ("Call back about order 7, take 0", 4)
        for (written, recorded) in [(relationMessage(), recordedRelation), (updateMessage(todo), recordedUpdate)] {
            let hex = written.readableBytesView.map { String(format: "%02x", $0) }.joined()
            guard hex == recorded else {
                throw FeedScenario.Mismatch(description: "pgoutput message \(hex), PostgreSQL 15 sent \(recorded)")
            }
        }
    }
}
