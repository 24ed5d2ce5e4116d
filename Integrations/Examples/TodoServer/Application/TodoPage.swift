import Hummingbird
import NIOCore

/// The page: plain HTML and JavaScript, no build step. Its source is `Page/index.html`, compiled into the
/// binary by `Scripts/embed-page.py` (`TodoPage+Source.swift`), so that the executable needs no resource
/// bundle beside it.
enum TodoPage {
    /// `200` with the page, under its Content-Security-Policy.
    static func response() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
