/// Why a ``TodoList`` could not change a to-do.
public enum TodoListError: Error, Equatable, CustomStringConvertible {
    /// Nothing is stored under this id.
    case unknownID(Int)
    /// Something is stored under this id, but it cannot be read.
    case unreadable(id: Int, StoredValueIssue)
    /// The store could not save the change.
    case storeFailed(KeyValueStoreError)
    /// The authors of the shown to-dos could not be read.
    case authorsUnavailable(String)
    /// The next page of to-dos could not be read; it can be asked for again.
    case pageUnavailable(String)

    /// A message for people.
    public var description: String {
        switch self {
        case .unknownID(let id):
            "no to-do #\(id); \"list\" shows them all"
        case .unreadable(let id, let issue):
            "to-do #\(id) cannot be read: \(issue); \"delete \(id)\" removes it"
        case .storeFailed(let error):
            "\(error)"
        case .authorsUnavailable(let reason):
            "the authors could not be read: \(reason)"
        case .pageUnavailable(let reason):
            "the next page could not be read: \(reason); \"more\" tries again"
        }
    }
}
