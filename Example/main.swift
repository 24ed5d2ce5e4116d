// A to-do list, sectioned by project and sorted by priority then title, kept live by events.
//
// An in-memory store publishes every change on an `EventBus`; a `FetchedResultsController` follows
// the bus. After each step the demo prints the change set the controller reported and the list.

import Foundation
import LiveResults

struct Todo: FetchableEntity {
    let id: Int
    var title: String
    var project: String
    var priority: Int
}

/// The source of truth: holds the to-dos and publishes every change on the bus.
actor TodoStore {
    private var todos: [Todo]
    private let bus: EventBus<Todo>

    init(_ todos: [Todo], bus: EventBus<Todo>) {
        self.todos = todos
        self.bus = bus
    }

    func fetchAll() -> [Todo] {
        todos
    }

    func add(_ todo: Todo) {
        todos.append(todo)
        bus.publish(.inserted(todo))
    }

    func edit(_ id: Int, _ change: @Sendable (inout Todo) -> Void) {
        guard let index = todos.firstIndex(where: { $0.id == id }) else { return }
        change(&todos[index])
        bus.publish(.updated(todos[index]))
    }

    func delete(_ id: Int) {
        todos.removeAll { $0.id == id }
        bus.publish(.deleted(id))
    }
}

let bus = EventBus<Todo>()
let store = TodoStore(
    [
        Todo(id: 1, title: "Buy milk", project: "Home", priority: 2),
        Todo(id: 2, title: "Fix bike", project: "Home", priority: 1),
        Todo(id: 3, title: "Write report", project: "Work", priority: 1),
        Todo(id: 4, title: "Email Ana", project: "Work", priority: 2),
        Todo(id: 5, title: "Mow lawn", project: "Garden", priority: 3),
    ],
    bus: bus
)

let controller = FetchedResultsController(
    definition: FetchDefinition(request: { await store.fetchAll() }),
    sortDescriptors: [SortDescriptor(\Todo.priority), SortDescriptor(\Todo.title, comparator: .lexical)],
    sectionNameKeyPath: \Todo.project
)

/// Prints each project on one line: `Home: #6 Call plumber (p1), #1 Buy milk (p2)`.
func printList() {
    for section in controller.sections {
        let todos = section.objects.map { "#\($0.id) \($0.title) (p\($0.priority))" }
        print("  \(section.name): \(todos.joined(separator: ", "))")
    }
}

/// `section.item`, as in the change set's index paths.
func describe(_ indexPath: IndexPath) -> String {
    "\(indexPath.section).\(indexPath.item)"
}

/// Prints a change set as a list of readable changes, with the ids of the entities concerned.
func printChanges(_ changeSet: ChangeSet<Todo>) {
    let sections = changeSet.sectionChanges.map { change in
        switch change.kind {
        case .insert(let index): "inserted section \(index) \"\(change.name)\""
        case .delete(let index): "deleted section \(index) \"\(change.name)\""
        }
    }
    let items = changeSet.itemChanges.map { change in
        switch change.kind {
        case .insert(let indexPath): "inserted #\(change.id) at \(describe(indexPath))"
        case .delete(let indexPath): "deleted #\(change.id) from \(describe(indexPath))"
        case .move(let from, let to): "moved #\(change.id) from \(describe(from)) to \(describe(to))"
        case .update(let indexPath): "updated #\(change.id) at \(describe(indexPath))"
        }
    }
    print("  changes: \((sections + items).joined(separator: "; "))")
}

let fetched = try await controller.performFetch()
print("Fetched \(controller.snapshot.count) to-dos in \(fetched.insertedSections.count) projects:")
printList()

/// One scripted change to the store.
struct Step {
    var title: String
    var action: @Sendable () async -> Void
}

/// Runs each step, then prints the change set it caused and the list after it.
///
/// The change sets are subscribed to before the first step publishes anything, so each step
/// waits for its own change set instead of sleeping.
func play(_ steps: [Step]) async {
    var changes = controller.changes.makeAsyncIterator()
    for (number, step) in steps.enumerated() {
        print("\nStep \(number + 1): \(step.title)")
        await step.action()
        guard let changeSet = await changes.next() else { return }
        printChanges(changeSet)
        printList()
    }
}

let subscription = controller.observe(bus)
await play([
    Step(title: "Add \"Call plumber\" to Home, priority 1") {
        await store.add(Todo(id: 6, title: "Call plumber", project: "Home", priority: 1))
    },
    Step(title: "Rename #1 to \"Buy oat milk\"") {
        await store.edit(1) { $0.title = "Buy oat milk" }
    },
    Step(title: "Raise #4 \"Email Ana\" to priority 1") {
        await store.edit(4) { $0.priority = 1 }
    },
    Step(title: "Move #2 \"Fix bike\" to Work") {
        await store.edit(2) { $0.project = "Work" }
    },
    Step(title: "Delete #5 \"Mow lawn\", the last to-do of Garden") {
        await store.delete(5)
    },
])
subscription.cancel()
let final = controller.snapshot
print("\nDone: \(final.count) to-dos in \(final.sections.count) projects; controller \(controller.state).")
