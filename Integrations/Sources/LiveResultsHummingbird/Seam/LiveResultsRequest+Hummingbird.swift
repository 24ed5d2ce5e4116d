import Hummingbird
import LiveResults
import LiveResultsServing

extension LiveResultsRequest {
    /// Hummingbird's request as the serving core reads it, its conditions asked of `conditions`.
    init(_ request: Request, conditions: @escaping @Sendable () async throws -> [LiveQueryFilter] = { [] }) {
        self.init(headers: request.headers, query: request.uri.query, conditions: conditions)
    }
}
