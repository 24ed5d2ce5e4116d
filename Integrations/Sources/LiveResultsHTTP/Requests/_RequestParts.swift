import Foundation

/// A request wrapper: it puts its value into the request being built.
protocol _RequestPart {
    /// Adds the wrapper's value to `parts`; `property` is the name of the property that holds it.
    func contribute(to parts: inout _RequestParts, property: String) throws
}

/// What a request's wrappers say, collected by reflection before the URL is built.
struct _RequestParts {
    var method = RequestMethod.get
    var path = "/"
    var pathParameters: [String: String] = [:]
    var queryItems: [(name: String, value: String)] = []
    var headers: [HTTPHeader] = []

    /// The wrappers of `request`, in declaration order.
    ///
    /// - Complexity: O(*p*) for *p* stored properties.
    init(of request: some APIRequest) throws {
        for child in Mirror(reflecting: request).children {
            guard let part = child.value as? any _RequestPart, let label = child.label else { continue }
            // A wrapped property's storage is `_name`.
            let property = label.hasPrefix("_") ? String(label.dropFirst()) : label
            try part.contribute(to: &self, property: property)
        }
    }

    /// The path with every `{name}` replaced by its parameter, percent-encoded as one segment.
    func filledPath() throws -> String {
        var result = ""
        var rest = path[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw HTTPAPIError.invalidURL("the path \(path) has a { without its }")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard let value = pathParameters[name] else {
                throw HTTPAPIError.unfilledPathParameter(name: name, path: path)
            }
            result += _PercentEncoding.encode(value)
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The URL: the base URL's path, one `/`, the filled path, then the query: the path's own (a path may end
    /// with `?` and a query, written percent-encoded), then the query items.
    func url(relativeTo baseURL: URL) throws -> URL {
        let base = baseURL.absoluteString
        guard var components = URLComponents(string: base), components.scheme != nil, components.host != nil else {
            throw HTTPAPIError.invalidURL(base)
        }
        let whole = try filledPath()
        let filled = whole.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let basePath =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        let relative = filled[0].hasPrefix("/") ? String(filled[0].dropFirst()) : String(filled[0])
        components.percentEncodedPath = basePath + "/" + relative
        let query =
            filled.dropFirst().filter { !$0.isEmpty }.map(String.init)
            + queryItems.map { _PercentEncoding.encode($0.name) + "=" + _PercentEncoding.encode($0.value) }
        if !query.isEmpty {
            components.percentEncodedQuery = query.joined(separator: "&")
        }
        guard let url = components.url else {
            throw HTTPAPIError.invalidURL(base + whole)
        }
        return url
    }
}
