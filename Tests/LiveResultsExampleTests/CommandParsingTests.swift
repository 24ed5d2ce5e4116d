import LiveResultsExampleKit
import Testing

@Suite("Command parsing")
struct CommandParsingTests {
    @Test(
        "Each command parses",
        arguments: [
            ("add Home 2 Buy milk", Command.add(title: "Buy milk", project: "Home", priority: 2, authorID: nil)),
            (
                "  add   Home 2   Buy   oat milk @ana ",
                .add(title: "Buy oat milk", project: "Home", priority: 2, authorID: "ana")
            ),
            ("ADD Work -1 Ship it", .add(title: "Ship it", project: "Work", priority: -1, authorID: nil)),
            ("edit 3 title Email Ana", .edit(id: 3, .title("Email Ana"))),
            ("edit 3 priority 1", .edit(id: 3, .priority(1))),
            ("edit 3 author @ben", .edit(id: 3, .author("ben"))),
            ("edit 3 author ben", .edit(id: 3, .author("ben"))),
            ("edit 3 author -", .edit(id: 3, .author(nil))),
            ("move 2 Work", .move(id: 2, project: "Work")),
            ("delete 5", .delete(id: 5)),
            ("generate 12 Later", .generate(count: 12, project: "Later")),
            ("generate 1", .generate(count: 1, project: "Inbox")),
            ("GENERATE 10000 big", .generate(count: 10_000, project: "big")),
            ("list", .list),
            ("more", .more),
            ("collapse Home", .collapse(project: "Home")),
            ("Expand  Home ", .expand(project: "Home")),
            ("pause", .pause),
            ("RESUME", .resume),
            ("fail-next-write", .failNextWrite),
            ("Fail-Next-Write", .failNextWrite),
            ("help", .help),
            ("quit", .quit),
        ])
    func parses(line: String, command: Command) throws {
        #expect(try Command.parse(line) == command)
    }

    @Test("A blank line or a comment is no command", arguments: ["", "   ", "# add Home 1 x"])
    func noCommand(line: String) throws {
        #expect(try Command.parse(line) == nil)
    }

    @Test(
        "Each mistake gets its message",
        arguments: [
            ("frob 1", #"unknown command "frob"; "help" lists the commands"#),
            ("add", "missing PROJECT; usage: add PROJECT PRIORITY TITLE... [@AUTHOR]"),
            ("add Home", "missing PRIORITY; usage: add PROJECT PRIORITY TITLE... [@AUTHOR]"),
            ("add Home 2", "missing TITLE; usage: add PROJECT PRIORITY TITLE... [@AUTHOR]"),
            ("add Home 2 @ana", "missing TITLE; usage: add PROJECT PRIORITY TITLE... [@AUTHOR]"),
            (
                "add Home high Buy milk",
                #"PRIORITY must be a whole number, not "high"; usage: add PROJECT PRIORITY TITLE... [@AUTHOR]"#
            ),
            ("edit", "missing ID; usage: \(editUsage)"),
            ("edit one title x", #"ID must be a whole number, not "one"; usage: \#(editUsage)"#),
            ("edit 1", "missing what to edit (title, priority or author); usage: \(editUsage)"),
            ("edit 1 title", "missing TITLE; usage: \(editUsage)"),
            ("edit 1 priority", "missing PRIORITY; usage: \(editUsage)"),
            ("edit 1 priority 2 3", #"unexpected "3"; usage: \#(editUsage)"#),
            ("edit 1 author", "missing AUTHOR; usage: \(editUsage)"),
            ("edit 1 colour red", #"cannot edit "colour": edit title, priority or author; usage: \#(editUsage)"#),
            ("move", "missing ID; usage: move ID PROJECT"),
            ("move 2", "missing PROJECT; usage: move ID PROJECT"),
            ("move 2 Big Project", #"unexpected "Project"; usage: move ID PROJECT"#),
            ("delete", "missing ID; usage: delete ID"),
            ("delete #5", ##"ID must be a whole number, not "#5"; usage: delete ID"##),
            ("delete 5 6", #"unexpected "6"; usage: delete ID"#),
            ("list all", #"unexpected "all"; usage: list"#),
            ("generate", "missing COUNT; usage: generate COUNT [PROJECT]"),
            ("generate x", #"COUNT must be a whole number, not "x"; usage: generate COUNT [PROJECT]"#),
            ("generate 0", "COUNT must be from 1 to 10000, not 0; usage: generate COUNT [PROJECT]"),
            ("generate -3 Later", "COUNT must be from 1 to 10000, not -3; usage: generate COUNT [PROJECT]"),
            ("generate 10001", "COUNT must be from 1 to 10000, not 10001; usage: generate COUNT [PROJECT]"),
            ("generate 3 Big Project", #"unexpected "Project"; usage: generate COUNT [PROJECT]"#),
            ("more 2", #"unexpected "2"; usage: more"#),
            ("collapse", "missing PROJECT; usage: collapse PROJECT"),
            ("collapse Big Project", #"unexpected "Project"; usage: collapse PROJECT"#),
            ("expand", "missing PROJECT; usage: expand PROJECT"),
            ("pause now", #"unexpected "now"; usage: pause"#),
            ("resume 1", #"unexpected "1"; usage: resume"#),
            ("fail-next-write 2", #"unexpected "2"; usage: fail-next-write"#),
            ("fail-write", #"unknown command "fail-write"; "help" lists the commands"#),
            ("quit now", #"unexpected "now"; usage: quit"#),
        ])
    func mistakes(line: String, message: String) {
        #expect(throws: (any Error).self) { try Command.parse(line) }
        do {
            _ = try Command.parse(line)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func helpListsEveryCommand() {
        #expect(
            CommandSyntax.helpLines == [
                "Commands:",
                "  add PROJECT PRIORITY TITLE... [@AUTHOR]",
                "      adds a to-do (priority 1 comes first)",
                "  generate COUNT [PROJECT]",
                "      adds COUNT to-dos in one write (\"Task N\", priorities 1, 2, 3, 1…) to PROJECT, or to Inbox",
                "  \(editUsage)",
                "      changes a to-do's title, priority or author (- for none): shown at once, then saved",
                "  move ID PROJECT",
                "      moves a to-do to another project: shown at once, then saved",
                "  delete ID",
                "      deletes a to-do",
                "  list",
                "      shows every to-do loaded (other replies show the first 20)",
                "  more",
                "      loads the next page of to-dos",
                "  collapse PROJECT",
                "      shows a project as its header only, now or when it appears",
                "  expand PROJECT",
                "      shows the to-dos of a collapsed project again",
                "  pause",
                "      keeps the list as it is: changes are still saved, but held back until resume",
                "  resume",
                "      shows what changed while paused, in one change set",
                "  fail-next-write",
                "      makes the next write to the store fail, as a full disk would: an edit or move is rolled back",
                "  help",
                "      shows this help",
                "  quit",
                "      leaves (so does the end of the input); every change is already saved",
            ])
    }
}

let editUsage = "edit ID title TITLE... | edit ID priority PRIORITY | edit ID author AUTHOR|-"
