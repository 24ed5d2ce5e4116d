import HTTPTypes
import LiveResults
import LiveResultsServing
import Testing

@Suite("The core's request")
struct LiveResultsRequestTests {
    @Test("a query value is the first of its name, percent-decoded, a + kept")
    func queryValues() {
        let request = LiveResultsRequest(headers: [:], query: "limit=5&since=a%2Fb&limit=7&plus=1+2&empty=&flag")
        #expect(request.queryValue("limit") == "5")
        #expect(request.queryValue("since") == "a/b")
        #expect(request.queryValue("plus") == "1+2")
        #expect(request.queryValue("empty") == "")
        #expect(request.queryValue("flag") == "")
        #expect(request.queryValue("offset") == nil)
        #expect(LiveResultsRequest(headers: [:], query: nil).queryValue("limit") == nil)
    }

    @Test("a stream resumes from Last-Event-ID before ?since=; a value that is no version is none")
    func resumePoint() throws {
        let version = try #require(ResultsVersion("3f09c2b4a17e55d0-42"))
        var headers = HTTPFields()
        headers[.lastEventID] = " 3f09c2b4a17e55d0-42 "
        let both = LiveResultsRequest(headers: headers, query: "since=3f09c2b4a17e55d0-7")
        #expect(_ResumePoint.version(of: both, header: .lastEventID) == version)
        #expect(_ResumePoint.version(of: both, header: nil) == ResultsVersion("3f09c2b4a17e55d0-7"))
        let neither = LiveResultsRequest(headers: [:], query: "since=not-a-version%00")
        #expect(_ResumePoint.version(of: neither, header: .lastEventID) == nil)
    }
}
