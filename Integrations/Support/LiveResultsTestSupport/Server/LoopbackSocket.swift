import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP socket to a port on 127.0.0.1, for clients that must control their socket as a library would not
/// let them: its receive buffer, its timeouts, when it reads.
public enum LoopbackSocket {
    /// A blocking socket connected to `port` on 127.0.0.1, `configure`d before it connects (a receive buffer set
    /// after would not change the window the connection opens with).
    ///
    /// - Throws: `TestFailure` naming the call that failed and its `errno`; the socket is closed then.
    public static func connect(port: Int, configure: (Int32) -> Void = { _ in }) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else {
            throw TestFailure("socket(): errno \(errno) (raise the descriptor limit: ulimit -n)")
        }
        configure(descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw TestFailure("connect(): errno \(error)")
        }
        return descriptor
    }
}
