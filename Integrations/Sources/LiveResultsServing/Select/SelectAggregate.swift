/// An aggregate function of `select=`.
public enum SelectAggregate: String, Hashable, Sendable, CaseIterable {
    case sum, avg, count, max, min
}
