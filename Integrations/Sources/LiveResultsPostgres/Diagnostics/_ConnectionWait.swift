/// One operation's wait for a connection from the client, which ends in one of three ways: the
/// operation got its connection, a connection attempt failed meanwhile (with the reason), or the
/// operation was cancelled.
final class _ConnectionWait: Sendable {
    private let ended = _Latch<String?>()

    /// The reason of a connection attempt that failed while the operation waited; `nil` once it is
    /// connected, or when the waiting task is cancelled.
    func failure() async -> String? { await ended.value(orOnCancellation: nil) }

    /// The operation has its connection: attempts that fail from now on are not its concern.
    func connected() { ended.open(with: nil) }

    /// A connection attempt failed while the operation waited.
    func fail(_ reason: String) { ended.open(with: reason) }
}
