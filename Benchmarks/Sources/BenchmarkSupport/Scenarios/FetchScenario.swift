/// The initial fetch of seeded rows, and its reference: sorting the same rows with `Array.sort(by:)`.
public struct FetchScenario: Sendable {
    /// The fetch result, in fetch order (for seeded rows, a row's id is its position).
    public let rows: [Row]

    /// The fetch of `count` seeded rows.
    public init(count: Int) {
        self.init(rows: Dataset.rows(count: count))
    }

    /// The fetch of `rows`.
    public init(rows: [Row]) {
        self.rows = rows
    }

    /// The measured operation: a new controller's initial fetch of `rows`.
    public func fetch() async throws -> LiveResultsDesign {
        try await LiveResultsDesign(fetching: rows)
    }

    /// A copy of `rows` with a buffer of its own, ready to sort: make it outside the measurement.
    public func unsortedCopy() -> [Row] {
        rows.map { $0 }
    }

    /// The reference: `Array.sort(by:)` with a hand-written closure, by section, then score, then
    /// position in the fetch result (the id).
    public static func sortByHand(_ rows: inout [Row]) {
        rows.sort { Row.precedes($0, at: $0.id, $1, at: $1.id) }
    }
}
