/// One step of the ``ScriptedDemo``: a change made through a ``TodoList``.
public struct DemoStep: Sendable {
    /// What the step does, in words.
    public var title: String
    /// Does it.
    public var action: @Sendable (TodoList) async throws -> Void

    /// Creates a step.
    public init(_ title: String, action: @escaping @Sendable (TodoList) async throws -> Void) {
        self.title = title
        self.action = action
    }
}
