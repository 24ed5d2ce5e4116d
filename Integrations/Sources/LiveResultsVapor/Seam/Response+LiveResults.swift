import HTTPTypes
import LiveResultsServing
import NIOCore
import NIOHTTP1
import Vapor

extension Response {
    /// The core's complete response as Vapor's.
    convenience init(_ response: LiveResultsResponse) {
        self.init(
            status: HTTPResponseStatus(statusCode: response.status.code), headers: HTTPHeaders(response.headers),
            body: response.body.map { Body(buffer: $0) } ?? Body())
    }

    /// The core's stream as Vapor's streamed response: the chunks written as the core writes them, then the end
    /// of the body, or the error that ended it.
    convenience init(_ stream: LiveResultsStreamResponse) {
        self.init(status: .ok, headers: HTTPHeaders(stream.headers))
        body = Body(asyncStream: { writer in
            do {
                try await stream.body { try await writer.write(.buffer($0)) }
                try await writer.write(.end)
            } catch {
                try await writer.write(.error(error))
            }
        })
    }

    /// Runs `body`; a refusal of the core is answered with its response, written as every adapter writes it.
    /// Other errors (an `authorize` that throws an `Abort`) pass to Vapor as they are.
    static func answering(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let refusal as LiveResultsRefusal {
            return Response(refusal.response)
        }
    }
}

extension HTTPHeaders {
    /// The core's headers, in order.
    init(_ fields: HTTPFields) {
        self.init(fields.map { ($0.name.rawName, $0.value) })
    }
}
