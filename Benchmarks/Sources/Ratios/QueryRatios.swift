import Foundation
import LiveResults

/// The routing target of live queries (the *LiveQueries* article): a write's cost with 10,000 registered equality
/// queries against its cost with 10 (an index routes each write to the queries it can change: O(affected), not
/// O(queries)).
@MainActor
struct QueryRatios {
    let options: RatioOptions

    /// A task of one of many projects.
    struct Task: QueryableEntity, Hashable {
        var id: Int
        var project: String
        var priority: Int

        static let queryColumns: [QueryColumn<Task>] = [
            QueryColumn("id", \.id), QueryColumn("project", \.project), QueryColumn("priority", \.priority),
        ]
    }

    /// Tasks in memory, fetched by project: the fetches of 10,000 queries cost what their results do.
    final class Tasks: QueryableSource {
        let byProject: [String: [Task]]
        let bus = EventBus<Task>()

        init(_ tasks: [Task]) { byProject = Dictionary(grouping: tasks, by: \.project) }

        func fetchDefinition(for query: LiveQuery<Task>) -> FetchDefinition<Task> {
            let project = query.filters.first { $0.column == "project" }.flatMap { filter -> String? in
                if case .equal(.text(let project)) = filter.condition { project } else { nil }
            }
            let tasks = project.map { byProject[$0] ?? [] } ?? byProject.values.flatMap { $0 }
            return FetchDefinition(request: { tasks.filter(query.isIncluded) }, isIncluded: query.isIncluded)
        }

        func subscribe(_ subscriber: EventSubscriber<Task>) -> EventSubscription { bus.subscribe(subscriber) }
    }

    func rows() async throws -> [RatioRow] {
        let queries = options.isQuick ? 2_000 : 10_000
        Progress.say("single-row updates with \(queries) equality queries registered, and with 10")
        let tasks = (0..<queries * 10).map { Task(id: $0, project: "p\($0 % queries)", priority: $0 % 5) }
        let many = try await registered(queries, over: tasks)
        let few = try await registered(10, over: tasks)
        // Rows of the first ten projects: each update changes one query in both registries.
        let targets = tasks.filter { $0.id % queries < 10 }
        var random = SystemRandomNumberGenerator()
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [updates(of: targets, in: many.source, &random), updates(of: targets, in: few.source, &random)])
        withExtendedLifetime((many, few)) {}
        return [
            RatioRow(
                name: "A single-row update, \(queries) equality queries / 10 queries",
                measured: "\(times[0].formatted) with \(queries), \(times[1].formatted) with 10",
                value: times[0] / times[1], unit: "×", target: .atMost(3))
        ]
    }

    /// A registry over its own copy of `tasks` holding one query per project of the first `count`.
    private func registered(
        _ count: Int, over tasks: [Task]
    ) async throws -> (source: Tasks, registry: LiveQueryRegistry<Tasks>, held: [LiveQueryResults<Task>]) {
        let source = Tasks(tasks)
        let registry = LiveQueryRegistry(source: source, indexing: ["project"], maximumQueries: count)
        var held: [LiveQueryResults<Task>] = []
        for project in 0..<count {
            held.append(try await registry.results(for: LiveQuery(filters: [.equal("project", "p\(project)")])))
        }
        return (source, registry, held)
    }

    /// Updates of the priority of random `targets`, each published alone.
    private func updates(
        of targets: [Task], in source: Tasks, _ random: inout SystemRandomNumberGenerator
    ) -> Stopwatch.Measurement {
        let events = (0..<options.liveEvents).map { index -> EntityEvent<Task> in
            var task = targets.randomElement(using: &random)!
            task.priority = 10 + index % 7
            return .updated(task)
        }
        return {
            await Stopwatch.measure { for event in events { source.bus.publish(event) } } / events.count
        }
    }
}
