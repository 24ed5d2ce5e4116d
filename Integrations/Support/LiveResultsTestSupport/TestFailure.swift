/// A failure of the tests' own making: a server that did not start or stop, an answer that a test could not use.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String

    /// A failure that says `description`.
    public init(_ description: String) { self.description = description }
}
