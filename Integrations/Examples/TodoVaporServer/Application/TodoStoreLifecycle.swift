import TodoApp
import Vapor

/// Shuts the store down on the application's shutdown (SIGTERM, SIGINT): its change feed drops its temporary
/// replication slot.
///
/// Registered before the routes' endpoints, it runs after them (Vapor runs its lifecycle handlers' shutdowns in the
/// reverse order): the streams have ended, and the store's client still runs.
struct TodoStoreLifecycle<Store: TodoStore>: LifecycleHandler {
    let store: Store
    /// The longest the store's shutdown may take: the server's graceful shutdown's.
    let timeout: Duration

    func shutdownAsync(_ application: Application) async {
        await store.shutdown(within: timeout)
    }
}
