import LiveResults
import LiveResultsExampleKit
import Testing

extension InterpreterTests {
    static let paused = #"paused: the list stays as it is; changes are held until "resume""#
    static let held = #"  changes: held until "resume""#
    static let frozen = "  paused: the list as it was at the pause"

    @Test("While paused, changes are saved and answered, but held: replies show the list as it was at the pause")
    func pauseHoldsChanges() async throws {
        let interpreter = try await interpreter([.milk, .bike])
        let atPause = [#"  section 0 "Home""#, "    0.0  #2 Fix bike (p1)", "    0.1  #1 Buy milk (p2, by Ana Lima)"]
        #expect(await interpreter.handle("pause").lines == [Self.paused])
        #expect(
            await interpreter.handle("add Home 3 Call plumber").lines
                == ["added #3 Call plumber (p3) to Home", Self.held, Self.frozen] + atPause)
        #expect(await interpreter.handle("delete 2").lines == ["deleted #2", Self.held, Self.frozen] + atPause)
        #expect(await interpreter.handle("list").lines == [Self.frozen] + atPause)
        #expect(interpreter.todos.repository.storedIDs() == [1, 3])
        #expect(interpreter.todos.takeUpdates() == [])

        // One change set, from the list at the pause: #2 leaves from where it was then.
        let now = [#"  section 0 "Home""#, "    0.0  #1 Buy milk (p2, by Ana Lima)", "    0.1  #3 Call plumber (p3)"]
        #expect(
            await interpreter.handle("resume").lines
                == [
                    "resumed: one change set catches up with the pause",
                    "  changes: deleted #2 from 0.0; inserted #3 at 0.1",
                ]
                + now)
        #expect(await interpreter.handle("list").lines == now)
        #expect(
            await interpreter.handle("add Home 4 Water plants").lines.prefix(2) == [
                "added #4 Water plants (p4) to Home", "  changes: inserted #4 at 0.2",
            ])
    }

    @Test("pause and resume say when they have nothing to do; a change undone while paused is no change")
    func pauseAndResumeWithNothingToDo() async throws {
        let interpreter = try await interpreter([.milk])
        #expect(await interpreter.handle("resume").lines == ["not paused: nothing to catch up"])
        #expect(await interpreter.handle("pause").lines == [Self.paused])
        #expect(await interpreter.handle("pause").lines == [#"already paused; "resume" catches up"#])
        #expect(
            await interpreter.handle("edit 1 title Buy oat milk").lines.prefix(3) == [
                "edited #1 Buy oat milk (p2, by Ana Lima)", Self.held, Self.frozen,
            ])
        _ = await interpreter.handle("edit 1 title Buy milk")
        #expect(
            await interpreter.handle("resume").lines == [
                "resumed: nothing changed while paused", "  changes: none", #"  section 0 "Home""#,
                "    0.0  #1 Buy milk (p2, by Ana Lima)",
            ])
        #expect(await interpreter.handle("resume").lines == ["not paused: nothing to catch up"])
    }

    @Test("While paused, the author of a to-do deleted, or written, since the pause is not available")
    func authorsWhilePaused() async throws {
        let interpreter = try await interpreter([.milk, .report])
        _ = await interpreter.handle("pause")
        // The association gives the authors of the current to-dos: #1 is gone, #4 is not in the list yet.
        #expect(
            await interpreter.handle("delete 1").lines == [
                "deleted #1", Self.held, Self.frozen, #"  section 0 "Home""#,
                "    0.0  #1 Buy milk (p2, by ana (not available while paused))", #"  section 1 "Work""#,
                "    1.0  #3 Write report (p1, by Ben Okafor)",
            ])
        #expect(
            await interpreter.handle("add Work 2 Plan trip @ben").lines.first
                == "added #4 Plan trip (p2, by ben (not available while paused)) to Work")
        #expect(
            await interpreter.handle("resume").lines == [
                "resumed: one change set catches up with the pause",
                #"  changes: deleted section 0 "Home"; deleted #1 from 0.0; inserted #4 at 0.1"#,
                #"  section 0 "Work""#, "    0.0  #3 Write report (p1, by Ben Okafor)",
                "    0.1  #4 Plan trip (p2, by Ben Okafor)",
            ])
    }

    @Test("collapse shows a project as its header, expand shows its to-dos again, each with its change set")
    func collapseAndExpand() async throws {
        let interpreter = try await interpreter([.milk, .bike, .report])
        let work = [#"  section 1 "Work""#, "    1.0  #3 Write report (p1, by Ben Okafor)"]
        #expect(
            await interpreter.handle("collapse Home").lines == [
                "collapsed Home", #"  changes: updated section 0 "Home"; deleted #2 from 0.0; deleted #1 from 0.1"#,
                #"  section 0 "Home" (collapsed, 2 to-dos hidden)"#,
            ] + work)
        // A hidden to-do changes no displayed row: only the number hidden, an update of the section.
        #expect(
            await interpreter.handle("add Home 1 Call plumber").lines == [
                "added #4 Call plumber (p1) to Home", #"  changes: updated section 0 "Home""#,
                #"  section 0 "Home" (collapsed, 3 to-dos hidden)"#,
            ] + work)
        #expect(await interpreter.handle("collapse Home").lines.prefix(2) == ["collapsed Home", "  changes: none"])
        #expect(
            await interpreter.handle("expand Home").lines == [
                "expanded Home",
                #"  changes: updated section 0 "Home"; inserted #4 at 0.0; inserted #2 at 0.1; inserted #1 at 0.2"#,
                #"  section 0 "Home""#, "    0.0  #4 Call plumber (p1)", "    0.1  #2 Fix bike (p1)",
                "    0.2  #1 Buy milk (p2, by Ana Lima)",
            ] + work)
    }

    @Test("A project not shown yet takes its collapsed state when it appears, and keeps it when it goes and comes back")
    func collapseAProjectNotShownYet() async throws {
        let interpreter = try await interpreter([.milk])
        let home = [#"  section 0 "Home""#, "    0.0  #1 Buy milk (p2, by Ana Lima)"]
        #expect(
            await interpreter.handle("collapse Garden").lines
                == ["collapsed Garden: not shown yet; it will be collapsed when it appears", "  changes: none"] + home)
        #expect(
            await interpreter.handle("add Garden 3 Mow lawn").lines == [
                "added #2 Mow lawn (p3) to Garden", #"  changes: inserted section 0 "Garden""#,
                #"  section 0 "Garden" (collapsed, 1 to-do hidden)"#, #"  section 1 "Home""#,
                "    1.0  #1 Buy milk (p2, by Ana Lima)",
            ])
        #expect(
            await interpreter.handle("delete 2").lines.prefix(2) == [
                "deleted #2", #"  changes: deleted section 0 "Garden""#,
            ])
        #expect(
            await interpreter.handle("add Garden 1 Rake leaves").lines.prefix(3) == [
                "added #2 Rake leaves (p1) to Garden", #"  changes: inserted section 0 "Garden""#,
                #"  section 0 "Garden" (collapsed, 1 to-do hidden)"#,
            ])
        #expect(
            await interpreter.handle("expand Work").lines.first
                == "expanded Work: not shown yet; it will be expanded when it appears")
        #expect(
            await interpreter.handle("expand Garden").lines.prefix(4) == [
                "expanded Garden", #"  changes: updated section 0 "Garden"; inserted #2 at 0.0"#,
                #"  section 0 "Garden""#, "    0.0  #2 Rake leaves (p1)",
            ])
    }

    @Test("A project collapsed while paused: resume catches up in what the list displays")
    func collapseWhilePaused() async throws {
        let interpreter = try await interpreter([.milk, .bike, .report])
        _ = await interpreter.handle("pause")
        _ = await interpreter.handle("add Home 3 Call plumber")
        let work = [#"  section 1 "Work""#, "    1.0  #3 Write report (p1, by Ben Okafor)"]
        // The display collapses the list it shows, the one at the pause: 2 to-dos, not 3.
        #expect(
            await interpreter.handle("collapse Home").lines == [
                "collapsed Home", #"  changes: updated section 0 "Home"; deleted #2 from 0.0; deleted #1 from 0.1"#,
                Self.frozen, #"  section 0 "Home" (collapsed, 2 to-dos hidden)"#,
            ] + work)
        #expect(
            await interpreter.handle("resume").lines == [
                "resumed: one change set catches up with the pause", #"  changes: updated section 0 "Home""#,
                #"  section 0 "Home" (collapsed, 3 to-dos hidden)"#,
            ] + work)
    }

    @Test("A mistake in pause, resume, collapse or expand gets its message and changes nothing")
    func pauseAndCollapseMistakes() async throws {
        let interpreter = try await interpreter([.milk])
        #expect(
            await interpreter.handle("collapse")
                == InterpreterReply(["error: missing PROJECT; usage: collapse PROJECT"]))
        #expect(await interpreter.handle("pause now") == InterpreterReply([#"error: unexpected "now"; usage: pause"#]))
        #expect(!interpreter.todos.controller.isPaused)
        #expect(interpreter.todos.display.sections.map(\.isCollapsed) == [false])
    }
}
