import Foundation
import HTTPTypes
import TodoApp
import Vapor

extension RESTWrites {
    /// Routes the writes of `path` to ``RESTWrites/answer(_:)``: `POST`, `PATCH` and `DELETE` of `path`,
    /// `PATCH` and `DELETE` of `path/{id}`. Their bodies stream, so that the writes' own limit answers `413`.
    func register(on routes: some RoutesBuilder, at path: String) {
        for method in [Vapor.HTTPMethod.POST, .PATCH, .DELETE] {
            routes.on(method, PathComponent(stringLiteral: path), body: .stream) { request async throws in
                try await respond(to: request, id: nil)
            }
        }
        for method in [Vapor.HTTPMethod.PATCH, .DELETE] {
            routes.on(method, PathComponent(stringLiteral: path), ":id", body: .stream) { request async throws in
                try await respond(to: request, id: request.parameters.get("id") ?? "")
            }
        }
    }

    private func respond(to request: Request, id: String?) async throws -> Response {
        let write = RESTRequest(
            method: HTTPRequest.Method(request.method.rawValue) ?? .post, id: id, query: request.url.query,
            headers: HTTPFields(request.headers)
        ) { limit in
            do {
                let buffer = try await request.body.collect(max: limit).get()
                return .bytes(Data(buffer?.readableBytesView ?? ByteBuffer().readableBytesView))
            } catch let abort as Abort where abort.status == .payloadTooLarge {
                return .tooLarge
            }
        }
        return Response(try await answer(write))
    }
}
