// The server example: the to-do list of the first example, served live.
//
//     swift run --package-path Integrations LiveResultsServer [--port 8080] [--host 127.0.0.1] [--postgres URL]
//         [--changes notify|wal|wal-sql]
//
// then open http://127.0.0.1:8080/ in a browser. See the catalog article "Serving live results".
import Foundation
import TodoServer

let usage = """
    usage: LiveResultsServer [--port N] [--host ADDRESS] [--postgres postgres://user[:password]@host[:port]/db]
                             [--query-timeout SECONDS] [--shutdown-timeout SECONDS] [--idle-timeout SECONDS]
                             [--allow-host NAME]… [--allow-origin ORIGIN]… [--changes notify|wal|wal-sql]
                             [--maximum-limit N] [--maximum-queries N] [--maximum-streams N]
      --port              the port to listen on (8080; 0 lets the system choose); else $PORT
      --host              the address to listen on (127.0.0.1); else $HOST
      --postgres          keep the to-dos in PostgreSQL's table todos (created when missing), else in memory;
                          else $DATABASE_URL
      --changes           with --postgres, how changes are learned of: notify (the trigger and LISTEN, the
                          default), wal (the write-ahead log, read as a replication stream; needs
                          wal_level = logical and REPLICATION) or wal-sql (the same log, read over SQL)
      --query-timeout     the longest wait for a database query; a write past it gets 503 (10)
      --shutdown-timeout  how long a graceful shutdown (SIGTERM, SIGINT) may take before the server exits (10)
      --idle-timeout      how long a connection may stay idle or take to send a request (30)
      --allow-host        a Host name requests may name (repeatable; any when none is given)
      --allow-origin      an origin besides the server's own that may write, http://host:port (repeatable)
      --maximum-limit     the largest window of /todos a client may ask for, and the window without ?limit= (500)
      --maximum-queries   the most live queries of /todos at once; one more, all streamed, gets 503 (1000)
      --maximum-streams   the most streams of /todos (and as many of /people) open at once; one more gets 503
                          (1000); each holds a file descriptor: raise ulimit -n to fit
    """

/// Writes `message` and the usage to standard error, and exits with status 2.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("\(message)\n\(usage)\n".utf8))
    exit(2)
}

/// `value` as a port, or the reason it is not one.
func port(_ value: String, from source: String) -> Int {
    guard let port = Int(value), (0...65_535).contains(port) else {
        fail("\(source) wants a number from 0 to 65535, not \(value)")
    }
    return port
}

/// `value` as a number of seconds, from a millisecond (the resolution: less would round to no time at all) to a day.
func seconds(_ value: String, from source: String) -> Duration {
    guard let seconds = Double(value), seconds >= 0.001, seconds <= 86_400 else {
        fail("\(source) wants a number of seconds from 0.001 to 86400, not \(value)")
    }
    return .milliseconds(Int64(seconds * 1_000))
}

/// `value` as a positive count.
func count(_ value: String, from source: String) -> Int {
    guard let count = Int(value), count > 0 else { fail("\(source) wants a whole number above 0, not \(value)") }
    return count
}

/// The configuration the command line asks for; the environment's `PORT`, `HOST` and `DATABASE_URL` fill
/// in what it leaves out.
func parse(_ arguments: [String], environment: [String: String]) -> TodoServer.Configuration {
    var configuration = TodoServer.Configuration()
    if let value = environment["PORT"], !value.isEmpty { configuration.port = port(value, from: "PORT") }
    if let value = environment["HOST"], !value.isEmpty { configuration.host = value }
    if let value = environment["DATABASE_URL"], !value.isEmpty { configuration.postgresURL = value }
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
        if argument == "--help" || argument == "-h" {
            print(usage)
            exit(0)
        }
        let options = [
            "--port", "--host", "--postgres", "--changes", "--query-timeout", "--shutdown-timeout", "--idle-timeout",
            "--allow-host", "--allow-origin", "--maximum-limit", "--maximum-queries", "--maximum-streams",
        ]
        guard options.contains(argument) else { fail("unknown option \(argument)") }
        guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
        switch argument {
        case "--port": configuration.port = port(value, from: argument)
        case "--host": configuration.host = value
        case "--query-timeout": configuration.queryTimeout = seconds(value, from: argument)
        case "--shutdown-timeout": configuration.shutdownTimeout = seconds(value, from: argument)
        case "--idle-timeout": configuration.idleTimeout = seconds(value, from: argument)
        case "--allow-host": configuration.allowedHosts.insert(value)
        case "--allow-origin": configuration.allowedOrigins.insert(value)
        case "--maximum-limit": configuration.maximumLimit = count(value, from: argument)
        case "--maximum-queries": configuration.maximumLiveQueries = count(value, from: argument)
        case "--maximum-streams": configuration.maximumStreams = count(value, from: argument)
        case "--changes":
            guard let changes = PostgresTodoStore.Changes(rawValue: value) else {
                fail("--changes wants notify, wal or wal-sql, not \(value)")
            }
            configuration.changes = changes
        default: configuration.postgresURL = value
        }
    }
    if configuration.changes != .notify, configuration.postgresURL == nil {
        fail("--changes \(configuration.changes.rawValue) needs --postgres")
    }
    return configuration
}

/// Ends the process if a graceful shutdown outlives its deadline: the server escalates to cancellation
/// at `shutdownTimeout`, and this is the bound on that too, whatever a task still waits for.
func exitWhenShutdownOverruns(_ shutdownTimeout: Duration) -> [any DispatchSourceSignal] {
    let grace = shutdownTimeout + .seconds(2)
    return [SIGTERM, SIGINT].map { number in
        // As ServiceLifecycle does: the signal is ignored, and handled by dispatch sources (the server's and this).
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(grace / .milliseconds(1)))) {
                FileHandle.standardError.write(
                    Data(
                        "LiveResultsServer: the graceful shutdown took over \(grace); exiting with what is left\n".utf8)
                )
                exit(1)
            }
        }
        source.resume()
        return source
    }
}

let configuration = parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
let store = configuration.postgresURL == nil ? "in memory" : "in PostgreSQL"
let host = configuration.host
let deadlines = exitWhenShutdownOverruns(configuration.shutdownTimeout)
do {
    try await TodoServer(configuration: configuration).run { port in
        // Written at once (not buffered): scripts and tests read the port from this line.
        FileHandle.standardOutput.write(Data("LiveResultsServer: to-dos \(store), open http://\(host):\(port)/\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("LiveResultsServer: \(error)\n".utf8))
    exit(1)
}
withExtendedLifetime(deadlines) {}
