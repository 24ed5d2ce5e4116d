import ServiceLifecycle
import TodoApp

/// The store as one of the server's services: it does nothing until the graceful shutdown (SIGTERM, SIGINT) reaches
/// it, then shuts the store down, whose change feed drops its temporary replication slot.
///
/// First in the service group, it is shut down last: once the HTTP server and the streams have ended, while the
/// store's client still runs. A shutdown escalated to cancellation shuts the store down too, and that returns at
/// once (the slot is then left to the other processes' sweeps).
struct TodoStoreService<Store: TodoStore>: Service {
    let store: Store
    /// The longest the store's shutdown may take: the server's graceful shutdown's.
    let timeout: Duration

    func run() async throws {
        // Returns at the graceful shutdown, throws at cancellation: the store is shut down either way.
        try? await gracefulShutdown()
        await store.shutdown(within: timeout)
    }
}
