/// Why a live query was refused: the parameter (or column) at fault and what is wrong with it.
///
/// Its ``description`` starts with the parameter's name (`priority: eq.abc is not an integer`), ready for a
/// `400 Bad Request`'s message.
public struct LiveQueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The query parameter, or the column, at fault.
    ///
    /// - Complexity: O(1).
    public var parameter: String
    /// What is wrong, after the parameter's name.
    ///
    /// - Complexity: O(1).
    public var problem: String

    /// An error about `parameter`.
    ///
    /// - Complexity: O(1).
    public init(parameter: String, problem: String) {
        self.parameter = parameter
        self.problem = problem
    }

    /// `parameter` followed by the problem.
    ///
    /// - Complexity: O(1).
    public var description: String { "\(parameter) \(problem)" }
}
