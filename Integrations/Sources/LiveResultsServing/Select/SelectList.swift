import Foundation

/// What `select=` asks for, in PostgREST's syntax: the columns of each row, renamed or not, and the resources
/// embedded in it, nested to any depth.
///
/// ```swift
/// let select = try SelectList(parsing: "id,title,owner:people!assignee_id!inner(id,name)")
/// select.items[1]                    // .column(SelectColumn(name: "title"))
/// select.embeddedResources[0].alias  // "owner"
/// select.description                 // "id,title,owner:people!assignee_id!inner(id,name)"
/// ```
///
/// The parameters addressed to an embedded resource (`owner.order=name.desc`, `owner.limit=3`,
/// `owner.name=eq.Ann`) are kept on it, in ``EmbeddedResource/parameters``, by
/// ``PostgRESTQuery/init(parameters:table:)``.
public struct SelectList: Hashable, Sendable, CustomStringConvertible {
    /// The items, in the order the request names them.
    ///
    /// - Complexity: O(1).
    public var items: [SelectItem]

    /// A list of `items`.
    ///
    /// - Complexity: O(1).
    public init(_ items: [SelectItem]) {
        self.items = items
    }

    /// `*`: every column, the answer PostgREST gives without `select=`.
    ///
    /// - Complexity: O(1).
    public static var all: SelectList { SelectList([.all]) }

    /// The embedded resources at this level, in order.
    ///
    /// - Complexity: O(*i*) for *i* items.
    public var embeddedResources: [EmbeddedResource] {
        items.compactMap { if case .embedded(let resource) = $0 { resource } else { nil } }
    }

    /// The list in PostgREST's syntax, which parses back to this value.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public var description: String { items.map(\.description).joined(separator: ",") }
}
