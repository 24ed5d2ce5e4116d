import Foundation
import LiveResults
import LiveResultsExampleKit
import Testing

@Suite("Scripted demo")
struct ScriptedDemoTests {
    /// The demo's output, step by step. Sections are ordered by name; inside a project, to-dos are
    /// ordered by priority, then title; a change set speaks in old coordinates for deletions and the
    /// `from` of moves, in new ones for the rest.
    static let expectedLines = [
        #"Seeded 5 to-dos, and under "todo.6" a value from an older version."#,
        "Fetched 5 to-dos in 3 projects:",
        #"  skipped "todo.6": missing field "title" (written by an older version?)"#,
        // The demo removed what its lists saved before: the first list reads the store.
        "  no saved to-dos to show first: read from the store",
        // One request for the authors of every shown to-do, each id once; #5 has none to request.
        "  authors requested in one batch: ana, ben",
        "  authors arrived: updated #2 at 1.0; updated #1 at 1.1; updated #3 at 2.0; updated #4 at 2.1",
        #"  section 0 "Garden""#,
        "    0.0  #5 Mow lawn (p3)",
        #"  section 1 "Home""#,
        "    1.0  #2 Fix bike (p1, by Ben Okafor)",
        "    1.1  #1 Buy milk (p2, by Ana Lima)",
        #"  section 2 "Work""#,
        "    2.0  #3 Write report (p1, by Ana Lima)",
        "    2.1  #4 Email Ana (p2, by Ben Okafor)",
        "",
        // "Call plumber" < "Fix bike" at priority 1: first in Home. Ben is cached: no request.
        #"Step 1: add "Call plumber" to Home, priority 1"#,
        "  changes: inserted #7 at 1.0",
        #"  section 0 "Garden""#,
        "    0.0  #5 Mow lawn (p3)",
        #"  section 1 "Home""#,
        "    1.0  #7 Call plumber (p1, by Ben Okafor)",
        "    1.1  #2 Fix bike (p1, by Ben Okafor)",
        "    1.2  #1 Buy milk (p2, by Ana Lima)",
        #"  section 2 "Work""#,
        "    2.0  #3 Write report (p1, by Ana Lima)",
        "    2.1  #4 Email Ana (p2, by Ben Okafor)",
        "",
        // Still last of the priority 2 to-dos of Home: updated in place.
        #"Step 2: rename #1 "Buy milk" to "Buy oat milk""#,
        "  changes: updated #1 at 1.2",
        #"  section 0 "Garden""#,
        "    0.0  #5 Mow lawn (p3)",
        #"  section 1 "Home""#,
        "    1.0  #7 Call plumber (p1, by Ben Okafor)",
        "    1.1  #2 Fix bike (p1, by Ben Okafor)",
        "    1.2  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 2 "Work""#,
        "    2.0  #3 Write report (p1, by Ana Lima)",
        "    2.1  #4 Email Ana (p2, by Ben Okafor)",
        "",
        // Priority 1, and "Email Ana" < "Write report": #4 moves, not #3.
        #"Step 3: raise #4 "Email Ana" to priority 1"#,
        "  changes: moved #4 from 2.1 to 2.0; updated #4 at 2.0",
        #"  section 0 "Garden""#,
        "    0.0  #5 Mow lawn (p3)",
        #"  section 1 "Home""#,
        "    1.0  #7 Call plumber (p1, by Ben Okafor)",
        "    1.1  #2 Fix bike (p1, by Ben Okafor)",
        "    1.2  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Ben Okafor)",
        "    2.1  #3 Write report (p1, by Ana Lima)",
        "",
        // Priority 1 in Work: between "Email Ana" and "Write report".
        #"Step 4: move #2 "Fix bike" to Work"#,
        "  changes: moved #2 from 1.1 to 2.1; updated #2 at 2.1",
        #"  section 0 "Garden""#,
        "    0.0  #5 Mow lawn (p3)",
        #"  section 1 "Home""#,
        "    1.0  #7 Call plumber (p1, by Ben Okafor)",
        "    1.1  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Ben Okafor)",
        "    2.1  #2 Fix bike (p1, by Ben Okafor)",
        "    2.2  #3 Write report (p1, by Ana Lima)",
        "",
        // "Errands" < "Garden": a new first section; the others shift, which is not a move. Zoe is
        // requested, and her missing result arrives as no author.
        #"Step 5: add "Buy stamps" to a new project, Errands, priority 2, by zoe, who is no stored author"#,
        #"  changes: inserted section 0 "Errands"; inserted #8 at 0.0"#,
        "  authors requested in one batch: zoe",
        "  authors arrived: updated #8 at 0.0",
        #"  section 0 "Errands""#,
        "    0.0  #8 Buy stamps (p2, by zoe (unknown author))",
        #"  section 1 "Garden""#,
        "    1.0  #5 Mow lawn (p3)",
        #"  section 2 "Home""#,
        "    2.0  #7 Call plumber (p1, by Ben Okafor)",
        "    2.1  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 3 "Work""#,
        "    3.0  #4 Email Ana (p1, by Ben Okafor)",
        "    3.1  #2 Fix bike (p1, by Ben Okafor)",
        "    3.2  #3 Write report (p1, by Ana Lima)",
        "",
        // An empty section does not exist: Garden goes with its last to-do.
        #"Step 6: delete #5 "Mow lawn", the last to-do of Garden"#,
        #"  changes: deleted section 1 "Garden"; deleted #5 from 1.0"#,
        #"  section 0 "Errands""#,
        "    0.0  #8 Buy stamps (p2, by zoe (unknown author))",
        #"  section 1 "Home""#,
        "    1.0  #7 Call plumber (p1, by Ben Okafor)",
        "    1.1  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Ben Okafor)",
        "    2.1  #2 Fix bike (p1, by Ben Okafor)",
        "    2.2  #3 Write report (p1, by Ana Lima)",
        "",
        // The store holds what the list shows: a refetch changes nothing.
        "Step 7: refetch everything from the store",
        #"  skipped "todo.6": missing field "title" (written by an older version?)"#,
        "  changes: none",
        #"  section 0 "Errands""#,
        "    0.0  #8 Buy stamps (p2, by zoe (unknown author))",
        #"  section 1 "Home""#,
        "    1.0  #7 Call plumber (p1, by Ben Okafor)",
        "    1.1  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Ben Okafor)",
        "    2.1  #2 Fix bike (p1, by Ben Okafor)",
        "    2.2  #3 Write report (p1, by Ana Lima)",
        "",
        // The refetch kept the cached authors; the signal drops them all, reporting every to-do with
        // an author as updated, and the next listing reads them again in one request.
        #"Step 8: rename author ben to "Benjamin Okafor" in the store, then forget the cached authors"#,
        "  A refetch keeps cached authors: a memory-pressure signal drops them, and the list reads them again.",
        "  changes: updated #8 at 0.0; updated #7 at 1.0; updated #1 at 1.1; updated #4 at 2.0; updated #2 at 2.1; "
            + "updated #3 at 2.2",
        "  authors requested in one batch: ana, ben, zoe",
        "  authors arrived: updated #8 at 0.0; updated #7 at 1.0; updated #1 at 1.1; updated #4 at 2.0; "
            + "updated #2 at 2.1; updated #3 at 2.2",
        #"  section 0 "Errands""#,
        "    0.0  #8 Buy stamps (p2, by zoe (unknown author))",
        #"  section 1 "Home""#,
        "    1.0  #7 Call plumber (p1, by Benjamin Okafor)",
        "    1.1  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Benjamin Okafor)",
        "    2.1  #2 Fix bike (p1, by Benjamin Okafor)",
        "    2.2  #3 Write report (p1, by Ana Lima)",
        "",
        // The new to-dos are stored ids 9 to 20. A second list's first page of 5 stored ids holds an
        // unreadable one: it shows 4 to-dos, and the pages go on. Its first fetch reports them inserted.
        "Step 9: add 12 to-dos to a new project, Later, then open a second list that reads 5 stored to-dos a page",
        "  Pages follow the stored ids: the first reads 1 to 4 and 6, which cannot be read, so it shows 4 to-dos;"
            + " more ids follow, so there is a next page.",
        #"  skipped "todo.6": missing field "title" (written by an older version?)"#,
        "  no saved to-dos to show first: read from the store",
        #"  changes: inserted section 0 "Home"; inserted section 1 "Work"; inserted #1 at 0.0; inserted #4 at 1.0; "#
            + "inserted #2 at 1.1; inserted #3 at 1.2",
        "  authors requested in one batch: ana, ben",
        "  authors arrived: updated #1 at 0.0; updated #4 at 1.0; updated #2 at 1.1; updated #3 at 1.2",
        #"  section 0 "Home""#,
        "    0.0  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 1 "Work""#,
        "    1.0  #4 Email Ana (p1, by Benjamin Okafor)",
        "    1.1  #2 Fix bike (p1, by Benjamin Okafor)",
        "    1.2  #3 Write report (p1, by Ana Lima)",
        "",
        // Stored ids 7 to 11 join as live inserts do, in two new sections; only zoe is not cached yet.
        "Step 10: load the next page of the second list: stored ids 7 to 11",
        #"  changes: inserted section 0 "Errands"; inserted section 2 "Later"; inserted #8 at 0.0; "#
            + "inserted #7 at 1.0; inserted #9 at 2.0; inserted #10 at 2.1; inserted #11 at 2.2",
        "  authors requested in one batch: zoe",
        "  authors arrived: updated #8 at 0.0",
        #"  section 0 "Errands""#,
        "    0.0  #8 Buy stamps (p2, by zoe (unknown author))",
        #"  section 1 "Home""#,
        "    1.0  #7 Call plumber (p1, by Benjamin Okafor)",
        "    1.1  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 2 "Later""#,
        "    2.0  #9 Task 9 (p1)",
        "    2.1  #10 Task 10 (p2)",
        "    2.2  #11 Task 11 (p3)",
        #"  section 3 "Work""#,
        "    3.0  #4 Email Ana (p1, by Benjamin Okafor)",
        "    3.1  #2 Fix bike (p1, by Benjamin Okafor)",
        "    3.2  #3 Write report (p1, by Ana Lima)",
        "",
        // Paused: the writes reach the store and the controller, but the list and its change sets wait.
        #"Step 11: pause the second list, then delete #8 "Buy stamps", raise #11 "Task 11" to priority 1 and move "#
            + #"#10 "Task 10" to Home"#,
        "  The store and the controller take every change, but the list stays as it was and no change set is"
            + " delivered. The association gives the authors of the current to-dos: #8's is not available.",
        #"  changes: held until "resume""#,
        "  paused: the list as it was at the pause",
        #"  section 0 "Errands""#,
        "    0.0  #8 Buy stamps (p2, by zoe (not available while paused))",
        #"  section 1 "Home""#,
        "    1.0  #7 Call plumber (p1, by Benjamin Okafor)",
        "    1.1  #1 Buy oat milk (p2, by Ana Lima)",
        #"  section 2 "Later""#,
        "    2.0  #9 Task 9 (p1)",
        "    2.1  #10 Task 10 (p2)",
        "    2.2  #11 Task 11 (p3)",
        #"  section 3 "Work""#,
        "    3.0  #4 Email Ana (p1, by Benjamin Okafor)",
        "    3.1  #2 Fix bike (p1, by Benjamin Okafor)",
        "    3.2  #3 Write report (p1, by Ana Lima)",
        "",
        // One change set from the list at the pause: old coordinates for the deletions and the `from` of
        // moves. "Task 11" < "Task 9" at priority 1, and "Buy oat milk" < "Task 10" at priority 2.
        "Step 12: resume the second list",
        "  One change set turns the list at the pause into the list now, as if the three changes were one.",
        #"  changes: deleted section 0 "Errands"; deleted #8 from 0.0; moved #10 from 2.1 to 0.2; "#
            + "moved #11 from 2.2 to 1.0; updated #10 at 0.2; updated #11 at 1.0",
        #"  section 0 "Home""#,
        "    0.0  #7 Call plumber (p1, by Benjamin Okafor)",
        "    0.1  #1 Buy oat milk (p2, by Ana Lima)",
        "    0.2  #10 Task 10 (p2)",
        #"  section 1 "Later""#,
        "    1.0  #11 Task 11 (p1)",
        "    1.1  #9 Task 9 (p1)",
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Benjamin Okafor)",
        "    2.1  #2 Fix bike (p1, by Benjamin Okafor)",
        "    2.2  #3 Write report (p1, by Ana Lima)",
        "",
        // The list displays Later as a header: its to-dos leave the display, and the section is updated.
        "Step 13: collapse Later: a header without its to-dos",
        #"  changes: updated section 1 "Later"; deleted #11 from 1.0; deleted #9 from 1.1"#,
        #"  section 0 "Home""#,
        "    0.0  #7 Call plumber (p1, by Benjamin Okafor)",
        "    0.1  #1 Buy oat milk (p2, by Ana Lima)",
        "    0.2  #10 Task 10 (p2)",
        #"  section 1 "Later" (collapsed, 2 to-dos hidden)"#,
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Benjamin Okafor)",
        "    2.1  #2 Fix bike (p1, by Benjamin Okafor)",
        "    2.2  #3 Write report (p1, by Ana Lima)",
        "",
        // "Buy oat milk" < "Call plumber" at priority 1: shown first at once, then back where it was when
        // the write fails. The rollback speaks in the coordinates of the list with the edit shown.
        #"Step 14: make the next write fail, then raise #1 "Buy oat milk" to priority 1"#,
        "  The list shows the edit at once, before the store saves it; the write fails, and the edit is rolled back.",
        "  shown at once: moved #1 from 0.1 to 0.0; updated #1 at 0.0",
        "  write failed: simulated failure; rolled back: moved #1 from 0.0 to 0.1; updated #1 at 0.1",
        #"  section 0 "Home""#,
        "    0.0  #7 Call plumber (p1, by Benjamin Okafor)",
        "    0.1  #1 Buy oat milk (p2, by Ana Lima)",
        "    0.2  #10 Task 10 (p2)",
        #"  section 1 "Later" (collapsed, 2 to-dos hidden)"#,
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Benjamin Okafor)",
        "    2.1  #2 Fix bike (p1, by Benjamin Okafor)",
        "    2.2  #3 Write report (p1, by Ana Lima)",
        "",
        // The store's event after the write is the version shown: no second change set.
        #"Step 15: raise #1 "Buy oat milk" to priority 1 again: this write succeeds"#,
        "  The store's event brings the version shown already: nothing more changes.",
        "  shown at once: moved #1 from 0.1 to 0.0; updated #1 at 0.0",
        #"  section 0 "Home""#,
        "    0.0  #1 Buy oat milk (p1, by Ana Lima)",
        "    0.1  #7 Call plumber (p1, by Benjamin Okafor)",
        "    0.2  #10 Task 10 (p2)",
        #"  section 1 "Later" (collapsed, 2 to-dos hidden)"#,
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Benjamin Okafor)",
        "    2.1  #2 Fix bike (p1, by Benjamin Okafor)",
        "    2.2  #3 Write report (p1, by Ana Lima)",
        "",
        // The second list saved its two pages at step 10: stored ids 1 to 11, 9 to-dos. Since then #8 was
        // deleted, so two pages of 5 stored ids now reach #12; #10 and #11 were changed while paused, #1
        // raised. Expanded: the new list shows every project.
        "Step 16: open the second list again, as the next launch would: a new list over the same store and saved"
            + " to-dos",
        "  It shows at once the to-dos the second list saved when it loaded its second page, reads the store"
            + " behind them, and reports what changed since in one change set.",
        "  showing 9 to-dos saved <date> (refreshing…)",
        #"  skipped "todo.6": missing field "title" (written by an older version?)"#,
        #"  refreshed from the store: deleted section 0 "Errands"; deleted #8 from 0.0; inserted #12 at 1.1; "#
            + "moved #1 from 1.1 to 0.0; moved #10 from 2.1 to 0.2; moved #11 from 2.2 to 1.0; updated #1 at 0.0; "
            + "updated #10 at 0.2; updated #11 at 1.0",
        "  authors requested in one batch: ana, ben",
        "  authors arrived: updated #1 at 0.0; updated #7 at 0.1; updated #4 at 2.0; updated #2 at 2.1; "
            + "updated #3 at 2.2",
        #"  section 0 "Home""#,
        "    0.0  #1 Buy oat milk (p1, by Ana Lima)",
        "    0.1  #7 Call plumber (p1, by Benjamin Okafor)",
        "    0.2  #10 Task 10 (p2)",
        #"  section 1 "Later""#,
        "    1.0  #11 Task 11 (p1)",
        "    1.1  #12 Task 12 (p1)",
        "    1.2  #9 Task 9 (p1)",
        #"  section 2 "Work""#,
        "    2.0  #4 Email Ana (p1, by Benjamin Okafor)",
        "    2.1  #2 Fix bike (p1, by Benjamin Okafor)",
        "    2.2  #3 Write report (p1, by Ana Lima)",
        "",
        "Done: 9 to-dos in 3 projects loaded from 2 pages, all saved in the store.",
        "Authors fetched in 3 requests for 6 keys by the first list, 2 requests for 3 keys by the second, "
            + "1 request for 2 keys by the third: one batch each time a list needed some.",
    ]

    @Test("The demo prints exactly the lists and change sets the ordering rule gives")
    func output() async throws {
        var lines: [String] = []
        try await ScriptedDemo.run(store: InMemoryKeyValueStore()) { lines.append($0) }
        #expect(withoutDates(lines) == Self.expectedLines)
    }

    @Test("The demo replaces the to-dos and saved to-dos of a used store, leaves its other keys, and prints the same")
    func repeatable() async throws {
        let store = InMemoryKeyValueStore()
        let saved = InMemoryResultsStore()
        try store.set("kept", forKey: "settings.theme")
        try store.set("{}", forKey: "todo.42")
        for _ in 1...2 {
            var lines: [String] = []
            try await ScriptedDemo.run(store: store, resultsStore: saved) { lines.append($0) }
            #expect(withoutDates(lines) == Self.expectedLines)
        }
        #expect(store.contents["settings.theme"]?.asText == "kept")
        #expect(store.keys(withPrefix: "todo.").count == 18)  // 17 to-dos and the older version's value
    }

    @Test("After each step, the list is the stored to-dos of its pages in order; a paused list stays as it was")
    func listsFollowTheOrderingRule() async throws {
        var todos = TodoList(store: InMemoryKeyValueStore(), resultsStore: InMemoryResultsStore())
        try await todos.load()
        for item in ScriptedDemo.seed {
            try todos.repository.save(item)
        }
        var pagesSeen: [Int] = []
        var pausedSteps: [Int] = []
        // The last stored id the pages of the list scanned, as the store was when its last page loaded.
        var scanned: (list: ObjectIdentifier, pages: Int, lastID: Int)?
        for (number, step) in ScriptedDemo.steps.enumerated() {
            let before = Array(todos.controller.fetchedObjects)
            todos = try await step.action(todos)
            pagesSeen.append(todos.pagesLoaded)
            guard !todos.controller.isPaused else {
                // A paused list shows what it showed at the pause, whatever the store holds.
                #expect(Array(todos.controller.fetchedObjects) == before)
                pausedSteps.append(number + 1)
                continue
            }
            if scanned?.list != ObjectIdentifier(todos) || scanned?.pages != todos.pagesLoaded {
                let lastID = todos.repository.storedIDs().prefix(todos.pageSize * todos.pagesLoaded).last ?? 0
                scanned = (ObjectIdentifier(todos), todos.pagesLoaded, lastID)
            }
            // No step writes past the pages of a list that has more: a list shows the stored to-dos its
            // pages scanned, or all of them once there is no next page.
            let lastID = todos.hasMore ? scanned?.lastID ?? 0 : .max
            let expected = todos.repository.fetchAll().filter { $0.id <= lastID }.sorted {
                ($0.project, $0.priority, $0.title) < ($1.project, $1.priority, $1.title)
            }
            #expect(Array(todos.controller.fetchedObjects) == expected)
            #expect(todos.controller.sections.map(\.name) == Array(Set(expected.map(\.project))).sorted())
        }
        // The list opened last continues with the two pages the second list saved.
        #expect(pagesSeen == [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2])
        #expect(pausedSteps == [11])
        #expect(todos.hasMore)
    }
}
