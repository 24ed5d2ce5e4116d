import HTTPTypes
import LiveResults
import LiveResultsServing
import Vapor

extension LiveResultsRequest {
    /// Vapor's request as the serving core reads it, its conditions asked of `conditions`.
    init(_ request: Request, conditions: @escaping @Sendable () async throws -> [LiveQueryFilter] = { [] }) {
        var headers = HTTPFields()
        for (name, value) in request.headers {
            if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
        }
        self.init(headers: headers, query: request.url.query, conditions: conditions)
    }
}
