import Foundation

/// The public members that need no `- Complexity:` line although the rule asks for one: O(1) accessors
/// and factories, by their symbol path (overloads share a path). Keep it short, and give the reason; a
/// member whose cost grows with its input never belongs here. The check fails on a path that is no
/// longer declared, or that states its complexity after all, so the list cannot go stale.
let complexityExceptions: [String: String] = {
    var exceptions: [String: String] = [:]
    func add(_ reason: String, _ paths: [String]) {
        for path in paths { exceptions[path] = reason }
    }
    add(
        "O(1): reads one value of the controller's state under its lock",
        [
            "FetchedResultsController/state", "FetchedResultsController/statistics",
            "FetchedResultsController/isPaused", "FetchedResultsController/pagination",
            "FetchedResultsController/hasNextPage", "FetchedResultsController/hasPreviousPage",
            "FetchedResultsController/resultsOrigin", "FetchedResultsController/callbackScheduler",
            "FetchedResultsController/associatedFetchSize", "CollapsibleSections/delegate",
        ])
    add(
        "O(1): a view of a snapshot, which shares the controller's storage",
        [
            "FetchedResultsController/fetchedObjects", "FetchedResultsController/sections",
            "FetchedResultsSection/name", "FetchedResultsSection/objects", "ObservableResults/sections",
            "ObservableResults/fetchedObjects",
        ])
    add(
        "O(1): a collection's bounds (RandomAccessCollection requires O(1))",
        [
            "FetchedObjects/startIndex", "FetchedObjects/endIndex", "FetchedResultsSection/Objects/startIndex",
            "FetchedResultsSection/Objects/endIndex", "FetchedResultsSections/startIndex",
            "FetchedResultsSections/endIndex",
        ])
    add(
        "O(1): a stored property of an @Observable model (the macro makes it computed)",
        [
            "ObservableResults/snapshot", "ObservableResults/state", "ObservableResults/lastChanges",
            "ObservableResults/isPaused", "ObservableResults/resultsOrigin",
        ])
    add(
        "O(1): a test of a few stored values, or a switch over an enum's cases",
        [
            "ChangeSet/isEmpty", "FetchedResultsSnapshot/isEmpty", "FetchState/isIdle", "FetchState/isLoading",
            "FetchState/isLoaded", "FetchState/error", "FetchState/description", "ItemMove/description",
            "EntityEvent/entityID", "IndexPath/section", "IndexPath/item", "CollapsibleSection/numberOfHiddenObjects",
            "FileResultsStore/Failure/url", "FileResultsStore/Failure/description",
            "LinuxMemoryPressureSource/Unavailable/description",
        ])
    add(
        "O(1): reads or clears one value under a lock",
        [
            "EventBus/subscriberCount", "MemoryPressureSignal/subscriberCount", "EventSubscription/isCancelled",
            "OptimisticUpdate/isSettled", "OptimisticUpdate/commit()",
        ])
    add(
        "O(1): a factory that stores its arguments; the cost is in the requests it makes later",
        [
            "CallbackScheduler/async(onQueue:)", "SectionOrder/custom(_:)",
            "FetchDefinition/numberedPages(from:pageSize:isIncluded:associations:_:)",
            "FetchDefinition/numberedPages(from:pageSize:isIncluded:associations:cache:_:)",
            "FetchDefinition/offsetPages(limit:isIncluded:associations:_:)",
            "FetchDefinition/offsetPages(limit:isIncluded:associations:cache:_:)",
            "FetchDefinition/keyedPages(by:limit:isIncluded:associations:_:)",
            "FetchDefinition/keyedPages(by:limit:isIncluded:associations:cache:_:)",
        ])
    add(
        "O(1): the protocol's empty default implementation (the requirement itself is the conformer's)",
        [
            "FetchedResultsControllerDelegate/controllerWillChangeContent(_:)",
            "FetchedResultsControllerDelegate/controller(_:didChange:)",
            "FetchedResultsControllerDelegate/controller(_:didChangeContentWith:snapshot:)",
        ])
    return exceptions
}()

/// The symbol kinds whose doc comments must state a complexity: methods, functions, operators,
/// subscripts and properties. Initializers, types and enumeration cases are not operations in this sense.
let operationKinds: Set<String> = [
    "swift.method", "swift.type.method", "swift.func", "swift.func.op", "swift.subscript", "swift.type.subscript",
    "swift.property", "swift.type.property", "swift.var",
]

/// Fails unless every public operation that `Sources/` declares states its cost with a `- Complexity:`
/// line in its doc comment (house style 8), except:
///
/// - by rule, decided from the symbol graph: initializers (they store their arguments; one that does
///   more says so by choice); stored properties (a declaration without an accessor block: `let x`,
///   `var x: T`); requirements of the module's own protocols (the cost is the conforming type's, which
///   documents it);
/// - by name: ``complexityExceptions``, O(1) accessors and factories, each with its reason.
///
/// Prints the counts, and fails on a listed exception that is no longer declared or that states its
/// complexity after all.
func checkComplexity(symbolGraphs: String) throws {
    var problems: [String] = []
    var stated = 0
    var byRule = 0
    var usedExceptions: Set<String> = []
    var documentedExceptions: Set<String> = []
    for (_, graph) in try loadSymbolGraphs(symbolGraphs) {
        let requirements = Set(
            (graph.relationships ?? []).filter { $0.kind == "requirementOf" || $0.kind == "optionalRequirementOf" }
                .map(\.source))
        for symbol in graph.symbols where operationKinds.contains(symbol.kind.identifier) {
            let path = symbol.pathComponents.joined(separator: "/")
            if symbol.pathComponents.contains(where: { $0.hasPrefix("_") }) || symbol.spi == true { continue }
            guard let location = symbol.location else { continue }
            let comment = symbol.docComment.map { $0.lines.map(\.text).joined(separator: "\n") } ?? ""
            let states = comment.range(of: #"(?m)^\s*- Complexity:"#, options: .regularExpression) != nil
            if states {
                stated += 1
                if complexityExceptions[path] != nil { documentedExceptions.insert(path) }
                continue
            }
            let declaration = (symbol.declarationFragments ?? []).map(\.spelling).joined()
            let isStoredProperty = symbol.kind.identifier.hasSuffix("property") && !declaration.contains("{")
            if isStoredProperty || requirements.contains(symbol.identifier.precise) {
                byRule += 1
                continue
            }
            if complexityExceptions[path] != nil {
                usedExceptions.insert(path)
                continue
            }
            let place = "\(URL(string: location.uri)?.path ?? location.uri):\(location.position.line + 1)"
            problems.append(
                "\(place): error: public \(symbol.kind.displayName.lowercased()) \(path) states no complexity: add a `- Complexity:` line to its doc comment (or, for an O(1) accessor, list it in complexityExceptions in Scripts/DocsTool/ComplexityChecks.swift with the reason)"
            )
        }
    }
    for path in complexityExceptions.keys.sorted() where !usedExceptions.contains(path) {
        problems.append(
            documentedExceptions.contains(path)
                ? "Scripts/DocsTool/ComplexityChecks.swift: error: \(path) states its complexity: remove it from complexityExceptions"
                : "Scripts/DocsTool/ComplexityChecks.swift: error: \(path) is in complexityExceptions but no public operation has that path"
        )
    }
    if !problems.isEmpty {
        throw ToolError(problems.joined(separator: "\n") + "\nerror: \(problems.count) complexity problem(s)")
    }
    print(
        "ok: \(stated) public operations state their complexity; \(byRule) need none by rule (stored properties, "
            + "protocol requirements); \(usedExceptions.count) are listed O(1) exceptions; 0 without one"
    )
}
