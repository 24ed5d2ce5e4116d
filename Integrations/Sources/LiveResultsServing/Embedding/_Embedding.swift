import Foundation

/// One row's embedding: its object (or what a resource embeds in it), and every key it read, at any depth.
struct _Embedding: Sendable {
    /// The object, or `nil`: the row has no related row (a resource), or an `!inner` resource leaves it out.
    var object: Data?
    /// The rows and lookups the object was made of.
    var reads: Set<_ReadKey>
}
