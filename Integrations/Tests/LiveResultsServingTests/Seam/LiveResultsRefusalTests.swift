import Foundation
import HTTPTypes
import LiveResultsServing
import NIOCore
import NIOFoundationCompat
import Testing

@Suite("The core's refusals")
struct LiveResultsRefusalTests {
    @Test("a plain refusal is written as Hummingbird writes its errors")
    func plain() {
        let response = LiveResultsRefusal.message(.badRequest, "limit must be at most 10").response
        #expect(response.status == .badRequest)
        #expect(response.headers[.contentType] == "application/json; charset=utf-8")
        #expect(response.body.map { String(buffer: $0) } == #"{"error":{"message":"limit must be at most 10"}}"#)
    }

    @Test("a full route refuses with 503 and Retry-After; on live queries with PostgREST's error")
    func streamRefusals() throws {
        let plain = _StreamRefusal.refusal().response
        #expect(plain.status == .serviceUnavailable)
        #expect(plain.headers[.retryAfter] == "1")
        #expect(plain.body.map { String(buffer: $0) } == #"{"error":"too many open streams; try again later"}"#)
        let postgREST = _StreamRefusal.refusal(reason: "down", postgREST: true, code: "PGRST000").response
        #expect(postgREST.headers[HTTPField.Name("Proxy-Status")!] == "PostgREST; error=PGRST000")
        let body = try #require(postgREST.body)
        let error = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
        #expect(error?["code"] as? String == "PGRST000")
        #expect(error?["message"] as? String == "down")
    }

    @Test("PostgREST's error keeps its status and body")
    func postgREST() {
        let error = PostgRESTError.badParameter("limit is not a number")
        let refusal = LiveResultsRefusal.postgREST(error)
        #expect(refusal.status == HTTPResponse.Status(code: error.status))
        #expect(refusal.response.body.map { Data(buffer: $0) } == error.body())
    }
}
