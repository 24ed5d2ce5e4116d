import LiveResults

/// The collapsible view of `Ratios views` and of `CacheProbe collapsible-delegate`: of the benchmark's 20
/// sections, those whose names end in 0, 4 or 8 start collapsed, and those ending in 4 have a limit
/// (`SectionLimit(maximum: 10, whenExceeding: 5)`), so events land in expanded, collapsed and limited sections.
public func benchmarkView(of controller: FetchedResultsController<Row>) -> CollapsibleSections<Row> {
    CollapsibleSections(
        controller,
        initiallyCollapsed: { $0.hasSuffix("0") || $0.hasSuffix("4") || $0.hasSuffix("8") },
        limit: { $0.hasSuffix("4") ? SectionLimit(maximum: 10, whenExceeding: 5) : nil })
}
