import Foundation
import HTTPTypes
import Hummingbird
import LiveResults
import NIOCore

/// The whole results as a response: the update's JSON, with its version as the entity tag.
enum _WholeResults {
    /// `200` with the results, or `304 Not Modified` when the request's `If-None-Match` names their version.
    static func response<Entity>(
        _ results: ResultsUpdate<Entity>, to request: Request, encoder: _UpdateEncoder<Entity>
    ) throws -> Response {
        let tag = "\"\(results.version)\""
        var headers = HTTPFields()
        headers[.eTag] = tag
        headers[.cacheControl] = "no-cache"
        if let wanted = request.headers[.ifNoneMatch],
            wanted.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == tag
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: try encoder.json(results)))
    }
}
