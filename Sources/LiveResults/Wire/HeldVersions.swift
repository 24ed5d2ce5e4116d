/// The versions kept for update streams to resume from, and an estimate of the memory they take: what
/// ``FetchedResultsController/heldVersions`` and ``LiveQueryRegistry/heldVersions`` count, for metrics.
///
/// A held version keeps what its change set replaced (the entities it removed or changed, or the results a
/// rebuild replaced), not a snapshot: ``estimatedBytes`` is the size of those records, each counted at its
/// type's `MemoryLayout` stride. It leaves out the heap buffers an entity's own properties point to (its strings
/// and arrays, which the current results often share), so it is a lower bound of what the versions keep alive.
///
/// ```swift
/// let held = controller.heldVersions
/// print(held.count, held.estimatedBytes)
/// ```
public struct HeldVersions: Sendable, Hashable {
    /// The versions held: the controller's and its windows', each counted once per holder.
    public var count: Int
    /// An estimate of their bytes, as the type's documentation says.
    public var estimatedBytes: Int

    /// Counts of `count` versions and `estimatedBytes` bytes; none by default.
    ///
    /// - Complexity: O(1).
    public init(count: Int = 0, estimatedBytes: Int = 0) {
        self.count = count
        self.estimatedBytes = estimatedBytes
    }

    /// Both counts of `left` and `right` added.
    ///
    /// - Complexity: O(1).
    public static func + (left: HeldVersions, right: HeldVersions) -> HeldVersions {
        HeldVersions(count: left.count + right.count, estimatedBytes: left.estimatedBytes + right.estimatedBytes)
    }

    /// The bytes of one version's record of `undo` beside `record`, the size of what holds it.
    static func estimatedBytes<Entity: FetchableEntity, Record>(
        of undo: _VersionUndo<Entity>, in record: Record.Type
    ) -> Int {
        MemoryLayout<Record>.stride + undo.entries.count * MemoryLayout<_VersionUndo<Entity>.Entry>.stride
            + (undo.replaced?.count ?? 0) * MemoryLayout<_StoredEntity<Entity>>.stride
    }
}
