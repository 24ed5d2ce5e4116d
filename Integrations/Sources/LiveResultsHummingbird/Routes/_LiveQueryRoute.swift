import Hummingbird
import LiveResults
import LiveResultsServing

/// What a live-queries route allows, and the table its errors name.
struct _LiveQueryRoute: Sendable {
    /// The rules of a request that asks for no sections.
    let rules: LiveQueryRules
    /// The columns `sections=` may name.
    let sections: Set<String>
    /// The table, as errors name it: the path's last component.
    let table: String
    /// The tables `select=` may embed, and the foreign keys that relate them to this one.
    let relations: LiveRelations

    init(
        path: RouterPath, filters: [String], orders: [String], defaultOrder: [LiveQueryOrdering], sections: [String],
        maximumLimit: Int, relations: LiveRelations = LiveRelations()
    ) {
        self.relations = relations
        rules = LiveQueryRules(
            filters: Set(filters), orders: Set(orders), defaultOrder: defaultOrder, maximumLimit: maximumLimit)
        self.sections = Set(sections)
        table = path.description.split(separator: "/").last.map(String.init) ?? path.description
    }
}
