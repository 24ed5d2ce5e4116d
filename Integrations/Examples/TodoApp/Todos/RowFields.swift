import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsWireSupport

/// The fields a write sends for one row: a JSON object's members, read column by column, each mistake an
/// error as PostgreSQL reports it through PostgREST.
public struct RowFields: Sendable {
    /// The table, as errors name it.
    let table: String
    let values: [String: JSONValue]
    /// Whether every column without a default must be given (an insert).
    let requiringAll: Bool

    init(table: String, values: [String: JSONValue], requiringAll: Bool) {
        self.table = table
        self.values = values
        self.requiringAll = requiringAll
    }

    /// A text column: `nil` when absent (and not required).
    func text(_ column: String) throws(TodoServerError) -> String? {
        guard let value = try present(column) else { return nil }
        guard case .string(let text) = value else { throw invalid("text", value) }
        return text
    }

    /// An `int` column (32 bits): `nil` when absent (and not required).
    func integer(_ column: String) throws(TodoServerError) -> Int? {
        guard let value = try present(column) else { return nil }
        guard case .integer(let integer) = value else { throw invalid("integer", value) }
        guard let small = Int32(exactly: integer) else {
            throw .postgREST(
                PostgRESTError(
                    status: 400, code: "22003", message: "value \"\(integer)\" is out of range for type integer"))
        }
        return Int(small)
    }

    /// A nullable `bigint` column: `nil` when absent, `.some(nil)` when `null`.
    func nullableBigint(_ column: String) throws(TodoServerError) -> Int64?? {
        guard let value = values[column] else { return nil }
        switch value {
        case .null: return .some(nil)
        case .integer(let integer): return .some(integer)
        default: throw invalid("bigint", value)
        }
    }

    /// The value of `column`, or `nil` when absent; a required column must be there and not `null`.
    private func present(_ column: String) throws(TodoServerError) -> JSONValue? {
        let value = values[column]
        if value == nil || value == .null {
            guard requiringAll || value == .null else { return nil }
            throw .postgREST(
                PostgRESTError(
                    status: 400, code: "23502",
                    message: "null value in column \"\(column)\" of relation \"\(table)\" violates not-null constraint")
            )
        }
        return value
    }

    /// PostgreSQL's invalid input for `type`.
    private func invalid(_ type: String, _ value: JSONValue) -> TodoServerError {
        let text: String
        switch value {
        case .string(let string): text = string
        default: text = String(decoding: (try? JSONEncoder().encode(value)) ?? Data(), as: UTF8.self)
        }
        return .postgREST(
            PostgRESTError(status: 400, code: "22P02", message: "invalid input syntax for type \(type): \"\(text)\""))
    }
}
