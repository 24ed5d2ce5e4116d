// `swift run LiveResultsExample [--interactive [--page-size N]] [--store PATH] [--help]`
//
// A to-do list in a UserDefaults-style store, shown live by a FetchedResultsController. Everything
// but the terminal lives in LiveResultsExampleKit, where the tests can reach it.

import Foundation
import LiveResultsExampleKit

let typing = isatty(STDIN_FILENO) == 1
let console = Console(
    readLine: { readLine() },
    print: { print($0) },
    printError: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
    // Only on a terminal, where the lines printed before it are already flushed.
    prompt: typing && isatty(STDOUT_FILENO) == 1 ? { FileHandle.standardOutput.write(Data("> ".utf8)) } : {},
    isTerminal: typing
)
exit(await ExampleApp.run(arguments: Array(CommandLine.arguments.dropFirst()), console: console))
