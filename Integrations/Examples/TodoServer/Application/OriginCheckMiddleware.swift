import Hummingbird

/// Refuses requests from where the server does not expect them, with `403` and a JSON error.
///
/// - A request whose `Host` is not among `allowedHosts` (when the list is not empty): a page served from
///   another name that resolves to this server (DNS rebinding) cannot read or write through it.
/// - A write (any method but `GET`, `HEAD` and `OPTIONS`) whose `Origin` is neither this server's own
///   (`http://` and its `Host`) nor among `allowedOrigins`: a page on another origin cannot write, even with
///   a request the browser sends without asking first.
struct OriginCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The `Host` names (with or without the port) requests may name; empty: any.
    let allowedHosts: Set<String>
    /// The origins (`http://host:port`) besides the server's own that may write.
    let allowedOrigins: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let host = request.head.authority ?? ""
        if !allowedHosts.isEmpty {
            let name = host.split(separator: ":").first.map(String.init) ?? host
            guard allowedHosts.contains(host) || allowedHosts.contains(name) else {
                throw TodoServerError.status(.forbidden, "this server does not answer for host \(host)")
            }
        }
        if ![.get, .head, .options].contains(request.method), let origin = request.headers[.origin],
            origin != "http://\(host)", !allowedOrigins.contains(origin)
        {
            throw TodoServerError.status(.forbidden, "writes from origin \(origin) are not allowed")
        }
        return try await next(request, context)
    }
}
