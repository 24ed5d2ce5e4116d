import HTTPTypes

/// The page: plain HTML and JavaScript, no build step. Its source is `Page/index.html`, compiled into the
/// binary by `Scripts/embed-page.py` (`TodoPage+Source.swift`), so that the executable needs no resource
/// bundle beside it.
public enum TodoPage {
    /// The headers of the page's `200`: HTML, revalidated on every load, under its Content-Security-Policy.
    ///
    /// - Complexity: O(1).
    public static var headers: HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        return headers
    }
}
