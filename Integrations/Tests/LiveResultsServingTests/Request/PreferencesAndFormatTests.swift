import LiveResultsServing
import Testing

@Suite("Prefer, Accept and profiles")
struct PreferencesAndFormatTests {
    @Test("Prefer: the first of each kind counts, across headers")
    func preferences() {
        let prefer = PostgRESTPreferences(headers: ["return=representation, count=exact", "return=minimal"])
        #expect(prefer.representation == .full)
        #expect(prefer.count == .exact)
        #expect(prefer.applied(write: true) == "return=representation, count=exact")
        #expect(prefer.applied(write: false) == "count=exact")
        #expect(PostgRESTPreferences(headers: []).applied(write: true) == nil)
        #expect(PostgRESTPreferences(headers: ["return=minimal"]).representation == .minimal)
        #expect(PostgRESTPreferences(headers: ["resolution=merge-duplicates"]).resolution == "merge-duplicates")
    }

    @Test("Accept: one object, the versioned results, else an array")
    func formats() {
        #expect(PostgRESTFormat(accept: "application/vnd.pgrst.object+json") == .object)
        #expect(PostgRESTFormat(accept: "application/vnd.pgrst.object+json;nulls=stripped") == .object)
        #expect(PostgRESTFormat(accept: "text/html, application/vnd.pgrst.object") == .object)
        #expect(PostgRESTFormat(accept: "application/vnd.liveresults+json") == .liveResults)
        #expect(PostgRESTFormat(accept: "application/json") == .array)
        #expect(PostgRESTFormat(accept: "*/*") == .array)
        #expect(PostgRESTFormat(accept: nil) == .array)
    }

    @Test("Profiles: public, or PGRST106")
    func profiles() throws {
        try PostgRESTProfile.check(nil)
        try PostgRESTProfile.check("public")
        #expect(throws: PostgRESTError.invalidSchema("private")) { try PostgRESTProfile.check("private") }
        let error = PostgRESTError.invalidSchema("private")
        #expect(error.status == 406)
        #expect(error.message == "Invalid schema: private")
        #expect(error.hint == "Only the following schemas are exposed: public")
    }
}
