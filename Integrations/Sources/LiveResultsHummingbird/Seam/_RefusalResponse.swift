import Hummingbird
import LiveResultsServing

/// The core's refusals as Hummingbird's errors: a plain one as an `HTTPError` (so that an application's error
/// middleware sees it as Hummingbird's own), one whose response is written as that response.
struct _RefusalResponse: HTTPResponseError {
    let response: LiveResultsResponse

    var status: HTTPResponse.Status { response.status }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(response)
    }

    /// Runs `body`, turning the core's refusals into Hummingbird's errors; other errors pass as they are.
    static func answering<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch LiveResultsRefusal.message(let status, let message) {
            throw HTTPError(status, message: message)
        } catch LiveResultsRefusal.response(let response) {
            throw _RefusalResponse(response: response)
        }
    }
}
