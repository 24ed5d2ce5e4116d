import LiveResults
import Testing

@Suite struct QueryKeyTests {
    @Test func emptyKeyIsAPrefixOfEveryKey() {
        let empty: QueryKey = []
        #expect(empty.hasPrefix([]))
        #expect(QueryKey(["posts"]).hasPrefix(empty))
        #expect(QueryKey(["posts", "42"]).hasPrefix(empty))
    }

    @Test func aKeyIsAPrefixOfItself() {
        let key: QueryKey = ["posts", "42"]
        #expect(key.hasPrefix(key))
    }

    @Test func componentsAreComparedWholeAndInOrder() {
        let key: QueryKey = ["posts", "42"]
        #expect(key.hasPrefix(["posts"]))
        #expect(!key.hasPrefix(["post"]))
        #expect(!QueryKey(["postsArchive"]).hasPrefix(["posts"]))
        #expect(!key.hasPrefix(["42"]))
        #expect(!key.hasPrefix(["posts", "4"]))
        #expect(!key.hasPrefix(["posts", "42", "comments"]), "a longer key is not a prefix")
        #expect(!QueryKey([]).hasPrefix(["posts"]))
    }

    @Test func literalsTakeVariablesAndDescribeTheirComponents() {
        let userID = "42"
        let key: QueryKey = ["posts", userID]
        #expect(key.components == ["posts", "42"])
        #expect(key == QueryKey(["posts", "42"]))
        #expect(key != ["posts", "43"])
        #expect(Set<QueryKey>([key, ["posts", "42"], ["posts"]]).count == 2)
        #expect(key.description == #"["posts", "42"]"#)
    }
}
