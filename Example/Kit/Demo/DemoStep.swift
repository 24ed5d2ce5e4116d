/// One step of the ``ScriptedDemo``: a change made through a ``TodoList``, or another list opened.
public struct DemoStep: Sendable {
    /// What the step does, in words.
    public var title: String
    /// Why the step does it this way, printed under its title, if it needs saying.
    public var note: String?
    /// Does it, given the list shown, and returns the list shown from then on: the same, or one it opened.
    public var action: @Sendable (TodoList) async throws -> TodoList

    /// Creates a step that changes the list shown.
    public init(_ title: String, note: String? = nil, action: @escaping @Sendable (TodoList) async throws -> Void) {
        self.init(title: title, note: note) { todos in
            try await action(todos)
            return todos
        }
    }

    /// A step that opens another list, shown from then on.
    public static func opening(
        _ title: String, note: String? = nil, _ open: @escaping @Sendable (TodoList) async throws -> TodoList
    ) -> DemoStep {
        DemoStep(title: title, note: note, action: open)
    }

    private init(title: String, note: String?, action: @escaping @Sendable (TodoList) async throws -> TodoList) {
        self.title = title
        self.note = note
        self.action = action
    }
}
