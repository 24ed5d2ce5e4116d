import LiveResults

/// A way to keep a live, sorted, sectioned result: LiveResults itself, or one of the in-house baselines.
///
/// Every design orders rows by section name, then score, then insertion position, and reports what
/// each batch of events changed, so they all do the same work on the same event stream.
public protocol ResultsDesign: AnyObject {
    /// Loads `rows` as the result of the initial fetch.
    init(fetching rows: [Row]) async throws

    /// Applies one batch of events.
    /// - Returns: the number of section and item changes the batch reported.
    @discardableResult
    func apply(_ events: [EntityEvent<Row>]) -> Int

    /// Applies one event, as a batch of its own.
    /// - Returns: the number of section and item changes it reported.
    @discardableResult
    func apply(_ event: EntityEvent<Row>) -> Int

    /// The result: each section's name and ids, in display order.
    var contents: [SectionContents] { get }
}

extension ResultsDesign {
    @discardableResult
    public func apply(_ event: EntityEvent<Row>) -> Int {
        apply([event])
    }
}

/// One section of a result, by ids: what the designs are compared on.
public struct SectionContents: Equatable, Sendable {
    public var name: String
    public var ids: [Int]

    public init(name: String, ids: [Int]) {
        self.name = name
        self.ids = ids
    }
}
