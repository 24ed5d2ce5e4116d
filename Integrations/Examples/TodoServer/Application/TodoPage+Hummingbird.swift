import Hummingbird
import NIOCore
import TodoApp

extension TodoPage {
    /// `200` with the page, under its Content-Security-Policy.
    static func response() -> Response {
        Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
