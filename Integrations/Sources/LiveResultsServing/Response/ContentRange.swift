/// PostgREST's `Content-Range` and the status that goes with it: `FIRST-LAST/TOTAL`, `*` for an empty range,
/// `TOTAL` `*` unless the request counts (`Prefer: count=exact`).
///
/// ```swift
/// ContentRange(offset: 0, count: 20, total: nil).header      // "0-19/*"
/// ContentRange(offset: 0, count: 20, total: 57).header       // "0-19/57", status 206
/// ContentRange(offset: 0, count: 0, total: nil).header       // "*/*"
/// ```
public struct ContentRange: Hashable, Sendable {
    /// The position of the first row answered.
    ///
    /// - Complexity: O(1).
    public var offset: Int
    /// How many rows are answered.
    ///
    /// - Complexity: O(1).
    public var count: Int
    /// All the rows of the query without `limit` and `offset`, when the request counts them.
    ///
    /// - Complexity: O(1).
    public var total: Int?

    /// The range of `count` rows from `offset`, of `total`.
    ///
    /// - Complexity: O(1).
    public init(offset: Int, count: Int, total: Int?) {
        self.offset = offset
        self.count = count
        self.total = total
    }

    /// The header's value, as PostgREST writes it.
    ///
    /// - Complexity: O(1).
    public var header: String {
        let range = total != 0 && count > 0 ? "\(offset)-\(offset + count - 1)" : "*"
        return range + "/" + (total.map(String.init) ?? "*")
    }

    /// A read's status, as PostgREST gives it: `200`; with a total, `206` when the rows answered are fewer than
    /// all, and `416` when the offset is past the end.
    ///
    /// - Complexity: O(1).
    public var status: Int {
        guard let total else { return 200 }
        if offset > total { return 416 }
        return count < total ? 206 : 200
    }
}
