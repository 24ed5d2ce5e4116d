/// The key of a shared query in a ``ResultsRegistry``: a path of string components, such as
/// `["posts", userID]`, so that a prefix (`["posts"]`) names a family of queries.
///
/// ```swift
/// let key: QueryKey = ["posts", userID]
/// key.hasPrefix(["posts"])   // true
/// ```
public struct QueryKey: Hashable, Sendable {
    /// The path components, outermost first.
    public var components: [String]

    /// Creates a key from its path components, outermost first.
    ///
    /// - Parameter components: The components; an empty array is the empty key, a prefix of every key.
    @inlinable public init(_ components: [String]) {
        self.components = components
    }

    /// Whether `prefix`'s components are the first components of this key, in order.
    ///
    /// The empty key is a prefix of every key, and every key is a prefix of itself; `["posts"]` is a
    /// prefix of `["posts", "42"]` but not of `["postsArchive"]`: components are compared whole.
    ///
    /// - Parameter prefix: The key to look for at the start of this one.
    /// - Returns: `true` if this key starts with all of `prefix`'s components.
    /// - Complexity: O(*m*) string comparisons for the *m* components of `prefix`.
    @inlinable public func hasPrefix(_ prefix: QueryKey) -> Bool {
        components.starts(with: prefix.components)
    }
}

extension QueryKey: ExpressibleByArrayLiteral {
    /// Creates a key from a literal of its components: `["posts", userID]`.
    ///
    /// - Parameter elements: The components, outermost first.
    @inlinable public init(arrayLiteral elements: String...) {
        self.init(elements)
    }
}

extension QueryKey: CustomStringConvertible {
    /// The components as an array literal, such as `["posts", "42"]`.
    ///
    /// - Complexity: O(*m*) for the *m* characters of the components.
    public var description: String { components.description }
}

extension QueryKey {
    /// Orders keys component by component, a key before the keys it is a prefix of.
    @usableFromInline static func _precedes(_ lhs: QueryKey, _ rhs: QueryKey) -> Bool {
        lhs.components.lexicographicallyPrecedes(rhs.components)
    }
}
