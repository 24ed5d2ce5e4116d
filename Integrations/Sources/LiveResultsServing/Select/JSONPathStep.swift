/// One step of a JSON path: `->` (a JSON value) or `->>` (text), by key or by index.
public struct JSONPathStep: Hashable, Sendable, CustomStringConvertible {
    /// Whether the step reads text (`->>`) rather than JSON (`->`).
    ///
    /// - Complexity: O(1).
    public var asText: Bool
    /// The key, or the index (`+1`, `-2`) when ``isIndex``.
    ///
    /// - Complexity: O(1).
    public var operand: String
    /// Whether ``operand`` is an array index.
    ///
    /// - Complexity: O(1).
    public var isIndex: Bool

    /// A step reading `operand`.
    ///
    /// - Complexity: O(1).
    public init(asText: Bool, operand: String, isIndex: Bool) {
        self.asText = asText
        self.operand = operand
        self.isIndex = isIndex
    }

    /// The step in PostgREST's syntax.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public var description: String {
        (asText ? "->>" : "->")
            + (isIndex ? String(operand.drop { $0 == "+" }) : _SelectSyntax.jsonKey(operand))
    }
}
