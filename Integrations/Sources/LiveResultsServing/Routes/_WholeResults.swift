import Foundation
import HTTPTypes
import LiveResults
import NIOCore

/// The whole results as a response: the update's JSON, with its version as the entity tag.
enum _WholeResults {
    /// Where whole results are built and encoded: off the cooperative thread pool, which has one thread
    /// per core. Encoding a list of 10,000 entities takes tens of milliseconds; on a cooperative thread it
    /// would hold back every stream's update meanwhile (on two cores, half of them), which showed as the
    /// tail of the streams' latency under a poller. One at a time: a second request at the same version
    /// finds the first one's encoding.
    private static let encoding = DispatchQueue(label: "LiveResultsServing.wholeResults")

    /// `200` with the source's results, or `304 Not Modified` when the request's `If-None-Match` names
    /// their version.
    ///
    /// A `304`, and a `200` at a version already encoded (pollers of unchanged results), cost O(1): the
    /// whole results (O(*n*)) are built and encoded only for a version not sent before, on a queue of
    /// their own.
    static func response<Entity>(
        _ source: _UpdatesSource<Entity>, to request: LiveResultsRequest, encoder: _UpdateEncoder<Entity>
    ) async throws -> LiveResultsResponse {
        let version = source.version()
        if let wanted = request.headers[.ifNoneMatch], matches(wanted, tag(version)) {
            return LiveResultsResponse(status: .notModified, headers: headers(version))
        }
        if let json = encoder.cachedJSON(base: nil, version: version) {
            return ok(json, version)
        }
        let (json, encoded) = try await withCheckedThrowingContinuation { continuation in
            encoding.async {
                continuation.resume(
                    with: Result {
                        let version = source.version()
                        if let json = encoder.cachedJSON(base: nil, version: version) { return (json, version) }
                        let results = source.wholeResults()
                        return (try encoder.json(results), results.version)
                    })
            }
        }
        return ok(json, encoded)
    }

    private static func ok(_ json: ByteBuffer, _ version: ResultsVersion) -> LiveResultsResponse {
        var headers = headers(version)
        headers[.contentType] = "application/json; charset=utf-8"
        return LiveResultsResponse(status: .ok, headers: headers, body: json)
    }

    private static func tag(_ version: ResultsVersion) -> String { "\"\(version)\"" }

    private static func headers(_ version: ResultsVersion) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = tag(version)
        headers[.cacheControl] = "no-cache"
        return headers
    }

    private static func matches(_ ifNoneMatch: String, _ tag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == tag }
    }
}
