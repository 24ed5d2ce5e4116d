import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat
import TodoApp

extension RESTWrites {
    /// Routes the writes of `path` to ``RESTWrites/answer(_:)``: `POST`, `PATCH` and `DELETE` of `path`,
    /// `PATCH` and `DELETE` of `path/{id}`.
    func add(to router: Router<some RequestContext>, at path: String) {
        for method in [HTTPRequest.Method.post, .patch, .delete] {
            router.on(RouterPath(path), method: method) { request, _ in try await respond(to: request, id: nil) }
        }
        for method in [HTTPRequest.Method.patch, .delete] {
            router.on(RouterPath("\(path)/:id"), method: method) { request, context in
                try await respond(to: request, id: context.parameters.get("id") ?? "")
            }
        }
    }

    private func respond(to request: Request, id: String?) async throws -> Response {
        let write = RESTRequest(method: request.method, id: id, query: request.uri.query, headers: request.headers) {
            limit in
            var request = request
            do {
                return .bytes(Data(buffer: try await request.collectBody(upTo: limit)))
            } catch is NIOTooManyBytesError {
                return .tooLarge
            }
        }
        return Response(try await answer(write))
    }
}
