// The server example: the to-do list of the first example, served live.
//
//     swift run --package-path Integrations LiveResultsServer [--port 8080] [--host 127.0.0.1] [--postgres URL]
//         [--changes notify|wal]
//
// then open http://127.0.0.1:8080/ in a browser. See the catalog article "Serving live results".
import Foundation
import TodoServer

let usage = """
    usage: LiveResultsServer [--port N] [--host ADDRESS] [--postgres postgres://user[:password]@host[:port]/db]
                             [--changes notify|wal]
      --port      the port to listen on (8080; 0 lets the system choose)
      --host      the address to listen on (127.0.0.1)
      --postgres  keep the to-dos in PostgreSQL's table todos (created when missing), else in memory
      --changes   with --postgres, how changes are learned of: notify (the trigger and LISTEN, the default) or
                  wal (the write-ahead log; needs wal_level = logical and the REPLICATION privilege)
    """

/// Writes `message` and the usage to standard error, and exits with status 2.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("\(message)\n\(usage)\n".utf8))
    exit(2)
}

/// The configuration the command line asks for.
func parse(_ arguments: [String]) -> TodoServer.Configuration {
    var configuration = TodoServer.Configuration()
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
        if argument == "--help" || argument == "-h" {
            print(usage)
            exit(0)
        }
        guard ["--port", "--host", "--postgres", "--changes"].contains(argument) else {
            fail("unknown option \(argument)")
        }
        guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
        switch argument {
        case "--port":
            guard let port = Int(value), (0...65_535).contains(port) else {
                fail("--port wants a number from 0 to 65535, not \(value)")
            }
            configuration.port = port
        case "--host": configuration.host = value
        case "--changes":
            guard let changes = PostgresTodoStore.Changes(rawValue: value) else {
                fail("--changes wants notify or wal, not \(value)")
            }
            configuration.changes = changes
        default: configuration.postgresURL = value
        }
    }
    if configuration.changes == .wal, configuration.postgresURL == nil { fail("--changes wal needs --postgres") }
    return configuration
}

let configuration = parse(Array(CommandLine.arguments.dropFirst()))
let store = configuration.postgresURL == nil ? "in memory" : "in PostgreSQL"
let host = configuration.host
do {
    try await TodoServer(configuration: configuration).run { port in
        // Written at once (not buffered): scripts and tests read the port from this line.
        FileHandle.standardOutput.write(Data("LiveResultsServer: to-dos \(store), open http://\(host):\(port)/\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("LiveResultsServer: \(error)\n".utf8))
    exit(1)
}
