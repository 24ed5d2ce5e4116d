/// One step of the ``ScriptedDemo``: a change made through a ``TodoList``.
public struct DemoStep: Sendable {
    /// What the step does, in words.
    public var title: String
    /// Why the step does it this way, printed under its title, if it needs saying.
    public var note: String?
    /// Does it.
    public var action: @Sendable (TodoList) async throws -> Void

    /// Creates a step.
    public init(_ title: String, note: String? = nil, action: @escaping @Sendable (TodoList) async throws -> Void) {
        self.title = title
        self.note = note
        self.action = action
    }
}
