import Hummingbird
import LiveResultsServing

extension Response {
    /// The core's complete response as Hummingbird's.
    init(_ response: LiveResultsResponse) {
        guard let body = response.body else {
            self.init(status: response.status, headers: response.headers)
            return
        }
        self.init(status: response.status, headers: response.headers, body: ResponseBody(byteBuffer: body))
    }

    /// The core's stream as Hummingbird's streamed response: the chunks written as the core writes them, then
    /// the end of the body.
    init(_ stream: LiveResultsStreamResponse) {
        self.init(
            status: .ok, headers: stream.headers,
            body: ResponseBody { writer in
                try await stream.body { try await writer.write($0) }
                try await writer.finish(nil)
            })
    }
}
