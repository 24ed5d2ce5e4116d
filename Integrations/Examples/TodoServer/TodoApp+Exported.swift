// The application the server serves (its to-dos, stores, configuration and writes) is a target of its own, which
// the Vapor example serves too; whoever imports the Hummingbird server sees it as part of it.
@_exported import TodoApp
