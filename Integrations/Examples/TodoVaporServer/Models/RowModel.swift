import Fluent
import TodoApp

/// A Fluent model of one of the server's tables: made or changed by the table's input, read back as its row.
public protocol RowModel: Model where IDValue == Int64 {
    /// The fields a write sets.
    associatedtype Input: RowInput

    /// An empty model, for Fluent.
    init()

    /// Sets the fields `input` sets.
    func apply(_ input: Input)

    /// The row this model holds.
    ///
    /// - Throws: `FluentError.idRequired` for a model not yet saved.
    func row() throws -> Input.Row
}
