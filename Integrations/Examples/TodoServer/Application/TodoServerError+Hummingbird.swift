import Hummingbird
import NIOCore
import NIOFoundationCompat
import TodoApp

extension TodoServerError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(answer)
    }
}

extension Response {
    /// `answer` as Hummingbird's response.
    init(_ answer: RESTResponse) {
        guard let body = answer.body else {
            self.init(status: answer.status, headers: answer.headers)
            return
        }
        self.init(
            status: answer.status, headers: answer.headers, body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
    }
}
