/// A section as a ``CollapsibleSections`` view shows it: its name, whether it is collapsed, and the items
/// it displays.
public struct CollapsibleSection<Entity: FetchableEntity>: Sendable {
    /// The section's name.
    public let name: String
    /// Whether the section is collapsed.
    public let isCollapsed: Bool
    /// The displayed items: all of the section's items when expanded; when collapsed, none, or those its
    /// ``SectionLimit`` lets through.
    public let objects: Slice<FetchedResultsSection<Entity>.Objects>
    /// How many items the section has, displayed or not.
    public let numberOfObjects: Int

    /// How many of the section's items are hidden.
    @inlinable public var numberOfHiddenObjects: Int { numberOfObjects - objects.count }

    @inlinable init(_ section: FetchedResultsSection<Entity>, isCollapsed: Bool, displayed: Int) {
        self.name = section.name
        self.isCollapsed = isCollapsed
        self.objects = section.objects.prefix(displayed)
        self.numberOfObjects = section.numberOfObjects
    }
}
