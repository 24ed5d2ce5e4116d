// The serving core's names (LiveResultsOptions, LiveResultsEndpoint, LiveRelations, PostgREST's types, …) are
// part of this library's API: users write them with `import LiveResultsHummingbird` alone.
@_exported import LiveResultsServing
