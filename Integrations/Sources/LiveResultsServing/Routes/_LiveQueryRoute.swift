import LiveResults

/// What a live-queries route allows, and the table its errors name.
package struct _LiveQueryRoute: Sendable {
    /// The rules of a request that asks for no sections.
    let rules: LiveQueryRules
    /// The columns `sections=` may name.
    let sections: Set<String>
    /// The table, as errors name it: the path's last component.
    let table: String
    /// The tables `select=` may embed, and the foreign keys that relate them to this one.
    let relations: LiveRelations
    /// Whether an error the source throws makes its own response in the adapter's framework (an error of the
    /// application's, such as a `503` of its own), so that it is passed on rather than answered as PostgREST's
    /// `PGRST000`.
    let respondsItself: @Sendable (any Error) -> Bool

    /// The route at `path` (its last component names the table in errors).
    package init(
        path: String, filters: [String], orders: [String], defaultOrder: [LiveQueryOrdering], sections: [String],
        maximumLimit: Int, relations: LiveRelations = LiveRelations(),
        respondsItself: @escaping @Sendable (any Error) -> Bool
    ) {
        self.relations = relations
        self.respondsItself = respondsItself
        rules = LiveQueryRules(
            filters: Set(filters), orders: Set(orders), defaultOrder: defaultOrder, maximumLimit: maximumLimit)
        self.sections = Set(sections)
        table = path.split(separator: "/").last.map(String.init) ?? path
    }
}
