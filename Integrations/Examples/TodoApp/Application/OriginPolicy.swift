import HTTPTypes

/// Which requests the server answers, by where they come from: the same rules for every framework.
///
/// - A request whose `Host` is not among `allowedHosts` (when the list is not empty): a page served from
///   another name that resolves to this server (DNS rebinding) cannot read or write through it.
/// - A write (any method but `GET`, `HEAD` and `OPTIONS`) whose `Origin` is neither this server's own
///   (`http://` and its `Host`) nor among `allowedOrigins`: a page on another origin cannot write, even with
///   a request the browser sends without asking first.
public struct OriginPolicy: Sendable {
    /// The `Host` names (with or without the port) requests may name; empty: any.
    public let allowedHosts: Set<String>
    /// The origins (`http://host:port`) besides the server's own that may write.
    public let allowedOrigins: Set<String>

    /// The policy of `configuration`'s allowed hosts and origins.
    ///
    /// - Complexity: O(1).
    public init(_ configuration: TodoConfiguration) {
        self.init(allowedHosts: configuration.allowedHosts, allowedOrigins: configuration.allowedOrigins)
    }

    /// A policy allowing `allowedHosts` (any when empty) and writes from `allowedOrigins` besides the server's own.
    ///
    /// - Complexity: O(1).
    public init(allowedHosts: Set<String>, allowedOrigins: Set<String>) {
        self.allowedHosts = allowedHosts
        self.allowedOrigins = allowedOrigins
    }

    /// Refuses a request the policy rules out.
    ///
    /// - Parameters:
    ///   - method: The request's method.
    ///   - host: Its `Host` (its authority), empty when it has none.
    ///   - origin: Its `Origin`, if any.
    /// - Throws: ``TodoServerError/status(_:_:)`` `403`, saying why.
    /// - Complexity: O(*n*) for a host name of *n* characters.
    public func check(method: HTTPRequest.Method, host: String, origin: String?) throws(TodoServerError) {
        if !allowedHosts.isEmpty {
            let name = host.split(separator: ":").first.map(String.init) ?? host
            guard allowedHosts.contains(host) || allowedHosts.contains(name) else {
                throw .status(.forbidden, "this server does not answer for host \(host)")
            }
        }
        if ![.get, .head, .options].contains(method), let origin, origin != "http://\(host)",
            !allowedOrigins.contains(origin)
        {
            throw .status(.forbidden, "writes from origin \(origin) are not allowed")
        }
    }
}
