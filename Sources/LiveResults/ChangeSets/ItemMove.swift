import Foundation

/// An entity that changed its position relative to the other surviving entities, or its section.
public struct ItemMove: Hashable, Sendable {
    /// Where the entity was, in the coordinates of the snapshot before the change.
    public var from: IndexPath
    /// Where the entity is, in the coordinates of the snapshot after the change.
    public var to: IndexPath

    /// Creates a move.
    @inlinable public init(from: IndexPath, to: IndexPath) {
        self.from = from
        self.to = to
    }
}

extension ItemMove: CustomStringConvertible {
    /// `section.item→section.item`, such as `0.2→1.0`.
    @inlinable public var description: String {
        "\(from[0]).\(from[1])→\(to[0]).\(to[1])"
    }
}
