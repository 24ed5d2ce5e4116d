import Foundation
import LiveResults

/// The cost target of live relations (the *Associated values* article): a related row's change (a person's
/// rename) costs the entities that show it, not the queries that follow the relation. 1,000 live queries, each
/// of 10 tasks with their assignees read, of which 10 show the renamed person, against 10 queries that all do.
@MainActor
struct RelationRatios {
    let options: RatioOptions

    struct Person: FetchableEntity {
        let id: Int
        var name: String
    }

    /// A task of one of many projects, assigned to a person.
    struct Task: QueryableEntity, Hashable {
        var id: Int
        var project: String
        var assigneeID: Int

        static let queryColumns: [QueryColumn<Task>] = [
            QueryColumn("id", \.id), QueryColumn("project", \.project), QueryColumn("assignee_id", \.assigneeID),
        ]
    }

    /// Tasks in memory, fetched by project, each query's controller with the live association of assignees.
    final class Tasks: QueryableSource {
        let byProject: [String: [Task]]
        let bus = EventBus<Task>()
        let people = EventBus<Person>()
        let assignees: Association<Task, Person>

        init(_ tasks: [Task]) {
            byProject = Dictionary(grouping: tasks, by: \.project)
            assignees = Association(key: \.assigneeID, following: people) { ids in
                Dictionary(uniqueKeysWithValues: ids.map { ($0, Person(id: $0, name: "p\($0)")) })
            }
        }

        func fetchDefinition(for query: LiveQuery<Task>) -> FetchDefinition<Task> {
            let project = query.filters.first { $0.column == "project" }.flatMap { filter -> String? in
                if case .equal(.text(let project)) = filter.condition { project } else { nil }
            }
            let tasks = project.map { byProject[$0] ?? [] } ?? []
            return FetchDefinition(
                request: { tasks.filter(query.isIncluded) }, isIncluded: query.isIncluded, associations: [assignees])
        }

        func subscribe(_ subscriber: EventSubscriber<Task>) -> EventSubscription { bus.subscribe(subscriber) }
    }

    func rows() async throws -> [RatioRow] {
        let queries = options.isQuick ? 200 : 1_000
        Progress.say(
            "a person's rename with \(queries) live queries following assignees, of which 10 show them, and 10")
        // Projects p0–p9 are all assigned to person 0; every other project to a person of its own.
        let tasks = (0..<queries * 10).map { id in
            Task(id: id, project: "p\(id % queries)", assigneeID: id % queries < 10 ? 0 : id % queries)
        }
        let many = try await registered(queries, over: tasks)
        let few = try await registered(10, over: tasks)
        let times = try await Stopwatch.medians(
            options.repetitions, of: [renames(in: many.source), renames(in: few.source)])
        withExtendedLifetime((many, few)) {}
        return [
            RatioRow(
                name: "A related row's change, \(queries) queries following the relation / 10 (10 show it)",
                measured: "\(times[0].formatted) with \(queries), \(times[1].formatted) with 10",
                value: times[0] / times[1], unit: "×", target: .atMost(1.5))
        ]
    }

    /// A registry over its own copy of `tasks` holding one query per project of the first `count`, every
    /// task's assignee read.
    private func registered(
        _ count: Int, over tasks: [Task]
    ) async throws -> (source: Tasks, registry: LiveQueryRegistry<Tasks>, held: [LiveQueryResults<Task>]) {
        let source = Tasks(tasks)
        let registry = LiveQueryRegistry(source: source, indexing: ["project"], maximumQueries: count)
        var held: [LiveQueryResults<Task>] = []
        for project in 0..<count {
            let results = try await registry.results(for: LiveQuery(filters: [.equal("project", "p\(project)")]))
            results.controller.associatedFetchSize = 0
            if let first = results.controller.fetchedObjects.first {
                _ = try await results.controller.loadAssociatedValue(source.assignees, for: first)
            }
            held.append(results)
        }
        return (source, registry, held)
    }

    /// Renames of person 0, each published alone.
    private func renames(in source: Tasks) -> Stopwatch.Measurement {
        let events = (0..<options.liveEvents / 10).map { EntityEvent<Person>.updated(Person(id: 0, name: "n\($0)")) }
        return { await Stopwatch.measure { for event in events { source.people.publish(event) } } / events.count }
    }
}
