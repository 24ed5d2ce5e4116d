import HTTPTypes
import NIOHTTP1
import TodoApp
import Vapor

extension Response {
    /// `answer` as Vapor's response.
    convenience init(_ answer: RESTResponse) {
        var headers = HTTPHeaders()
        for field in answer.headers { headers.add(name: field.name.rawName, value: field.value) }
        self.init(
            status: HTTPResponseStatus(statusCode: answer.status.code), headers: headers,
            body: answer.body.map { Response.Body(data: $0) } ?? .empty)
    }
}

extension HTTPFields {
    /// Vapor's `headers`, in their order.
    init(_ headers: HTTPHeaders) {
        self.init()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { append(HTTPField(name: name, value: value)) }
        }
    }
}
