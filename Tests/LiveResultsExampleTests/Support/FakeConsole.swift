import LiveResultsExampleKit
import Synchronization

/// A console that reads scripted lines and records what is printed.
final class FakeConsole: Sendable {
    private let state: Mutex<(input: [String], output: [String], errors: [String])>

    init(input: [String] = []) {
        state = Mutex((input, [], []))
    }

    var output: [String] { state.withLock { $0.output } }
    var errors: [String] { state.withLock { $0.errors } }

    var console: Console {
        Console(
            readLine: { self.state.withLock { $0.input.isEmpty ? nil : $0.input.removeFirst() } },
            print: { line in self.state.withLock { $0.output.append(line) } },
            printError: { line in self.state.withLock { $0.errors.append(line) } }
        )
    }
}
