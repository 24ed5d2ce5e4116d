import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A PostgreSQL cluster of its own in a temporary directory, on a free loopback port, for tests and
/// benchmarks: `initdb`, then `pg_ctl start`; ``stop()`` (or the end of the process) stops it and removes
/// the directory. When the process runs as root, the server runs as the unprivileged `postgres` user
/// (PostgreSQL refuses to run as root).
public final class TemporaryPostgres: Sendable {
    /// Where a cluster could not be started, with what to do about it.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, and what to do about it.
        public var description: String

        /// A failure that says `description`.
        public init(description: String) { self.description = description }
    }

    /// The loopback address the server listens on.
    public let host = "127.0.0.1"
    /// The port the server listens on.
    public let port: Int
    /// The superuser's name.
    public let username = "postgres"
    /// The superuser's password (the server asks for it over TCP: scram-sha-256).
    public let password = "liveresults"
    /// The temporary directory of the cluster.
    public let directory: String
    private let bin: String
    private let user: String?
    /// The server's options (`pg_ctl -o`): its port, socket directory and settings.
    private let startOptions: String

    /// The folder of PostgreSQL's programs (`initdb`, `pg_ctl`), newest version first, or `nil`.
    public static func binDirectory() -> String? {
        if let path = ProcessInfo.processInfo.environment["LIVERESULTS_POSTGRES_BIN"] { return path }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") }
    }

    /// What to do when PostgreSQL is not installed.
    public static let installHint = """
        PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb). Install it with \
        `apt-get install postgresql` (Debian, Ubuntu), or point the tests at a server with \
        LIVERESULTS_POSTGRES_URL=postgres://user:password@host:port/database.
        """

    /// The settings of PostgreSQL's default durability, over the defaults of ``init(settings:)``; see
    /// ``PostgresTestServer/durable()``.
    public static let durableSettings = ["fsync": "on", "full_page_writes": "on"]

    /// Creates and starts a cluster.
    ///
    /// It runs with `wal_level = logical` (the change feed's tests), and, for speed, `fsync = off`: a
    /// benchmark of writers passes `["fsync": "on"]`, a test of a server without logical decoding
    /// `["wal_level": "replica"]`.
    ///
    /// - Parameter settings: Server settings (`-c name=value`) that replace the defaults or add to them.
    /// - Throws: ``Failure`` when PostgreSQL is not installed (saying how to install it) or does not start.
    public init(settings: [String: String] = [:]) throws {
        guard let bin = Self.binDirectory() else { throw Failure(description: Self.installHint) }
        self.bin = bin
        user = getuid() == 0 ? "postgres" : nil
        var template = Array("/tmp/liveresults-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed: \(errno)") }
        directory = String(cString: made)
        port = try Self.freePort()
        let defaults = [
            "listen_addresses": "127.0.0.1", "fsync": "off", "full_page_writes": "off", "max_connections": "300",
            "wal_level": "logical", "max_replication_slots": "64", "max_wal_senders": "16",
        ]
        startOptions =
            (["-p \(port)", "-k \(directory)"]
            + defaults.merging(settings) { $1 }.sorted { $0.key < $1.key }.map { "-c \($0.key)=\($0.value)" })
            .joined(separator: " ")
        let passwordFile = "\(directory)/password"
        try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        if let user {
            try Self.run("/bin/chown", ["-R", user, directory])
        }
        try runAsServerUser(
            "\(bin)/initdb",
            [
                "-D", "\(directory)/data", "-U", username, "--pwfile=\(passwordFile)", "--auth-local=trust",
                "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync", "--locale=C.UTF-8",
            ])
        try runAsServerUser(
            "\(bin)/pg_ctl",
            ["-D", "\(directory)/data", "-l", "\(directory)/log", "-o", startOptions, "-w", "-t", "60", "start"])
        _ = Self.running.withLockedValue { $0.insert(directory) }
        Self.registerCleanup(bin: bin, user: user)
    }

    /// How `pg_ctl` stops the server.
    public enum ShutdownMode: String, Sendable, CaseIterable {
        /// Sessions are ended and the server shuts down cleanly.
        case fast
        /// The server quits at once, as in a crash: it recovers from its log when it starts again.
        case immediate
    }

    /// `pg_ctl restart`: the server stops (closing every connection) and starts again on the same port.
    ///
    /// - Parameters:
    ///   - mode: How the server stops; `.fast` by default.
    ///   - downtime: How long the server stays stopped before it starts again; none by default.
    public func restart(mode: ShutdownMode = .fast, downtime: Duration = .zero) throws {
        let data = ["-D", "\(directory)/data"]
        guard downtime > .zero else {
            try runAsServerUser("\(bin)/pg_ctl", data + ["-m", mode.rawValue, "-w", "-t", "60", "restart"])
            return
        }
        try runAsServerUser("\(bin)/pg_ctl", data + ["-m", mode.rawValue, "-w", "-t", "60", "stop"])
        usleep(UInt32(downtime / .microseconds(1)))
        try runAsServerUser(
            "\(bin)/pg_ctl", data + ["-l", "\(directory)/log", "-o", startOptions, "-w", "-t", "60", "start"])
    }

    /// Stops the server and removes its directory.
    public func stop() {
        _ = try? runAsServerUser("\(bin)/pg_ctl", ["-D", "\(directory)/data", "-m", "fast", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
        _ = Self.running.withLockedValue { $0.remove(directory) }
    }

    /// The server's log, for failure messages.
    public var log: String {
        (try? String(contentsOfFile: "\(directory)/log", encoding: .utf8)) ?? ""
    }

    private func runAsServerUser(_ program: String, _ arguments: [String]) throws {
        if let user {
            try Self.run("/usr/sbin/runuser", ["-u", user, "--", program] + arguments)
        } else {
            try Self.run(program, arguments)
        }
    }

    /// Runs a program to its end, with `posix_spawn` and `waitpid`, and returns what it wrote.
    ///
    /// Not Foundation's `Process`: on Linux it waits for the end of a descriptor that the program's children
    /// inherit, and the server that `pg_ctl start` leaves running would hold it forever. The output goes to a
    /// file, for the same reason. The program starts with an empty signal mask: a child inherits its parent's,
    /// in which this process's threads (NIO's, the runtime's) block signals such as the `SIGALRM` that ends a
    /// `pgbench -T` run.
    ///
    /// - Parameters:
    ///   - program: The program's path.
    ///   - arguments: Its arguments.
    ///   - environment: Its environment, `NAME=value` each; this process's when `nil`.
    /// - Returns: What the program wrote to its standard output and error.
    /// - Throws: ``Failure`` when it cannot be started or does not exit with status 0, with what it wrote.
    @discardableResult
    public static func run(_ program: String, _ arguments: [String], environment: [String]? = nil) throws -> String {
        let outputPath = NSTemporaryDirectory() + "liveresults-pg-output-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let pid = try spawn(program, arguments, environment: environment, output: outputPath)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // Exited normally with status 0: WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
        return text
    }

    /// Starts `program` with `arguments`, its standard input `/dev/null` and its output and errors written to the
    /// file at `output`, and returns its process id; the caller waits for it (`waitpid`).
    ///
    /// The child gets an empty signal mask, the default actions of `SIGINT` and `SIGTERM` (ignored signals stay
    /// ignored across `exec`, and a tool that handles them itself ignores them), and none of this process's
    /// descriptors above standard error (see ``run(_:_:environment:)``).
    ///
    /// - Throws: ``Failure`` when it cannot be started.
    public static func spawn(
        _ program: String, _ arguments: [String], environment: [String]? = nil, output: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup($0) } + [nil] }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid = pid_t()
        let spawned =
            if let envp {
                posix_spawn(&pid, program, &actions, &attributes, argv, envp)
            } else {
                posix_spawn(&pid, program, &actions, &attributes, argv, environ)
            }
        guard spawned == 0 else { throw Failure(description: "could not run \(program): error \(spawned)") }
        return pid
    }

    /// Makes the child close every descriptor above standard error.
    ///
    /// `pg_ctl start` leaves the server running, and a spawned program inherits every descriptor that was
    /// not opened close-on-exec: without this the server would keep copies of the test process's sockets
    /// (a connection a test closes would stay open, its peer never seeing the end). glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34) does it; Swift's Glibc module does not import it,
    /// so it is looked up by name.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// A loopback port nothing listens on now.
    public static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "bind() failed: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: Cleanup at exit

    private static let running = NIOLockedValueBox(Set<String>())
    private static let cleanup = NIOLockedValueBox<(bin: String, user: String?)?>(nil)

    private static func registerCleanup(bin: String, user: String?) {
        let first = cleanup.withLockedValue { registered in
            defer { registered = (bin, user) }
            return registered == nil
        }
        if first {
            atexit {
                guard let (bin, user) = TemporaryPostgres.cleanup.withLockedValue({ $0 }) else { return }
                for directory in TemporaryPostgres.running.withLockedValue({ $0 }) {
                    let stop = [bin + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"]
                    _ = try? TemporaryPostgres.run(
                        user == nil ? stop[0] : "/usr/sbin/runuser",
                        user == nil ? Array(stop.dropFirst()) : ["-u", user!, "--"] + stop)
                    try? FileManager.default.removeItem(atPath: directory)
                }
            }
        }
    }
}
