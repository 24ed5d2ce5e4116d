import Foundation
import LiveResultsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// nginx (Debian's `/usr/sbin/nginx`, or the one on `PATH`) in front of server processes, as the *Serving live
/// results* article configures it for Server-Sent Events: HTTP/1.1 to the servers with keep-alive, no buffering,
/// no read timeout a quiet stream could reach. Started in the foreground, as this process's child, with a
/// configuration, logs and temporary files in a folder of its own; stopped with SIGTERM (or SIGKILL).
final class Nginx: Sendable {
    let process: Process
    let port: Int
    let directory: URL

    var base: String { "http://127.0.0.1:\(port)" }

    /// Starts nginx on a free port, balancing `upstreams` (ports on 127.0.0.1) round-robin.
    init(upstreams: [Int]) throws {
        let candidates =
            ["/usr/sbin/nginx"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/nginx" }
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure("no nginx: apt-get install nginx")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("liveresults-nginx-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try TemporaryPostgres.freePort()
        let configuration = directory.appendingPathComponent("nginx.conf")
        try Self.configuration(port: port, upstreams: upstreams, directory: directory.path)
            .write(to: configuration, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-p", directory.path, "-c", configuration.path, "-e", directory.path + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    /// The configuration: what the article says users need, plus this run's paths.
    static func configuration(port: Int, upstreams: [Int], directory: String) -> String {
        // As root, nginx's workers would run as `nobody`, who may not write to this folder.
        let user = geteuid() == 0 ? "user root;\n" : ""
        return """
            \(user)daemon off;
            worker_processes 1;
            worker_rlimit_nofile 8192;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 4096; }
            http {
                access_log off;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                upstream liveresults {
            \(upstreams.map { "        server 127.0.0.1:\($0);" }.joined(separator: "\n"))
                    keepalive 32;
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://liveresults;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $host;
                        proxy_buffering off;
                        proxy_cache off;
                        proxy_read_timeout 1h;
                        proxy_send_timeout 1h;
                        proxy_connect_timeout 2s;
                    }
                }
            }

            """
    }

    /// The end of nginx's error log, for a failure's message.
    var errorLog: String {
        let text = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        return String(text.suffix(2_000))
    }

    /// SIGTERM (a fast stop: a graceful one would wait for the streams to end), then SIGKILL after 10 seconds;
    /// removes the folder.
    func stop() async {
        kill(process.processIdentifier, SIGTERM)
        let deadline = now() + 10_000_000_000
        while process.isRunning, now() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }
}
