/// How an embedded resource joins its parent.
public enum EmbeddedJoin: String, Hashable, Sendable {
    /// `!left`: every parent, with `null` or `[]` when nothing is related (the default).
    case left
    /// `!inner`: only the parents that have a related row.
    case inner
}
