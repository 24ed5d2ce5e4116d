import LiveResults

/// The `@Observable` model of a ``RemoteResults`` is `ObservableResults` over its replica:
/// `ObservableResults(remote.replica)`, whose `state` is a fetch state; the connection's state is
/// ``RemoteResults/state-swift.property``.
@available(*, deprecated, message: "use ObservableResults(remote.replica); the connection's state is remote.state")
public typealias ObservableRemoteResults<Entity: FetchableEntity & Codable> = ObservableResults<Entity>

extension ObservableResults where Entity: Codable {
    /// Follows the replica of `remote`, as `ObservableResults(remote.replica)` does.
    ///
    /// - Complexity: O(1).
    @available(*, deprecated, message: "use ObservableResults(remote.replica)")
    public convenience init(_ remote: RemoteResults<Entity>) {
        self.init(remote.replica)
    }
}
