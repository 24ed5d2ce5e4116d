import Foundation
import HTTPTypes
import Hummingbird
import LiveResultsServing
import NIOFoundationCompat

/// Hummingbird's response for a ``PostgRESTAnswer``.
enum _PostgRESTResponse {
    static func response(_ answer: PostgRESTAnswer) -> Response {
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
        }
        guard let body = answer.body else {
            return Response(status: HTTPResponse.Status(code: answer.status), headers: headers)
        }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
    }
}
