extension SelectList {
    /// The list as written, with the parameters addressed to its embedded resources at any depth
    /// (`todos.limit=2`, `todos.people.name=eq.Ann`): what tells two embeddings of one query apart, since
    /// ``description`` writes the list alone, as `select=` does.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    var identity: String {
        var parameters: [String] = []
        collectParameters(under: "", into: &parameters)
        return ([description] + parameters).joined(separator: "&")
    }

    private func collectParameters(under prefix: String, into parameters: inout [String]) {
        for resource in embeddedResources {
            let path = prefix + resource.key + "."
            let addressed = resource.parameters
            let named = [("order", addressed.order), ("limit", addressed.limit), ("offset", addressed.offset)]
            for case (let name, let value?) in named { parameters.append(path + name + "=" + value) }
            for filter in addressed.filters { parameters.append(path + filter.column + "=" + filter.condition) }
            if let required = addressed.requiresRelatedRow {
                parameters.append(prefix + resource.key + (required ? "=not.is.null" : "=is.null"))
            }
            resource.select.collectParameters(under: path, into: &parameters)
        }
    }
}
