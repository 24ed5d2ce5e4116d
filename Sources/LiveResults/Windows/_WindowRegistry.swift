import Foundation

/// The windows of one controller: their states under one lock, and an index of where they lie, so that a
/// change set reaches only the windows it can change.
///
/// It follows the controller as one queue observer: each change set delivered to the controller's observers
/// is turned into positions once (``_GlobalChanges``), then into the change set of each window it can
/// change. The windows' deliveries go through the controller's own delivery path, in order with the
/// controller's: a window is a transform of the controller's change sets, not another queue.
@usableFromInline final class _WindowRegistry<Entity: FetchableEntity>: Sendable {
    @usableFromInline struct State: Sendable {
        @usableFromInline var windows: [UInt64: _WindowState<Entity>] = [:]
        @usableFromInline var nextID: UInt64 = 0
        /// The `.first` and `.range` windows by their first position, then id; rebuilt when windows come,
        /// go or move.
        @usableFromInline var byOffset: [(offset: Int, id: UInt64)] = []
        /// The largest limit among `byOffset`'s windows: a window holding a position starts at most that far
        /// before it.
        @usableFromInline var longestLimit = 0
        /// The `.last` windows, whose positions follow the end of the results.
        @usableFromInline var fromEnd: [UInt64] = []
        @usableFromInline var isIndexStale = false
        /// The results after the last change set followed, while a window holds versions: the entities the
        /// next change set removes or replaces are read there, for the window's held version
        /// (``_WindowState/undo(of:from:)``). One storage for all the windows, replaced at each change.
        @usableFromInline var previous: _SectionedStorage<Entity>?
        /// The number of windows that hold versions.
        @usableFromInline var versionHolders = 0
        /// The controller's count of rebuilds at the last change set followed (``_ResultsCore/rebuilds``): a
        /// rebuild shows as a change of it, also one that changed nothing the observers see.
        @usableFromInline var rebuilds: UInt64?

        @usableFromInline init() {}

        /// Has window `id` hold its versions from now on, starting with the current one, the entities of
        /// `storage` (the results the observers have) at its positions.
        @inlinable mutating func holdVersions(of id: UInt64, in storage: _SectionedStorage<Entity>) {
            guard windows[id]?.keepsHistory == false else { return }
            windows[id]!.keepsHistory = true
            windows[id]!.hold(storage)
            versionHolders += 1
            previous = storage
        }

        /// Removes window `id`, and returns it.
        @inlinable mutating func removeWindow(_ id: UInt64) -> _WindowState<Entity>? {
            guard let window = windows.removeValue(forKey: id) else { return nil }
            isIndexStale = true
            if window.keepsHistory {
                versionHolders -= 1
                if versionHolders == 0 { previous = nil }
            }
            return window
        }

        /// Rebuilds the index of window positions, if windows came, went or moved since it was built.
        @inlinable mutating func refreshIndex() {
            guard isIndexStale else { return }
            isIndexStale = false
            byOffset.removeAll(keepingCapacity: true)
            fromEnd.removeAll(keepingCapacity: true)
            longestLimit = 0
            for (id, window) in windows {
                switch window.range {
                case .last: fromEnd.append(id)
                case .first(let limit):
                    byOffset.append((0, id))
                    longestLimit = Swift.max(longestLimit, limit)
                case .range(let offset, let limit):
                    byOffset.append((offset, id))
                    longestLimit = Swift.max(longestLimit, limit)
                }
            }
            byOffset.sort { ($0.offset, $0.id) < ($1.offset, $1.id) }
        }

        /// The windows that `changes` can change, in the order they were made.
        ///
        /// - Complexity: O(log *W* + *v*) for *W* windows of which *v* are visited, when the change set only
        ///   changes content; otherwise every window that holds or follows the first position it shifts.
        @inlinable mutating func windows(changedBy changes: _GlobalChanges<Entity>) -> [UInt64] {
            refreshIndex()
            var found: [UInt64] = []
            let first = changes.firstShifted
            if let first {
                // Every window that ends at or after the first position shifted, and every window that follows
                // the end of the results.
                let start = byOffset.partitioningIndex { Self.end(from: $0.offset, limit: longestLimit) >= first }
                for entry in byOffset[start...] where windowEnd(entry.id) >= first { found.append(entry.id) }
                found.append(contentsOf: fromEnd)
            }
            // And the windows holding an entity changed in place before it.
            for position in changes.updated {
                if let first, position >= first { break }
                var index = byOffset.partitioningIndex { $0.offset > position } - 1
                while index >= 0 && Self.end(from: byOffset[index].offset, limit: longestLimit) > position {
                    if windowEnd(byOffset[index].id) > position { found.append(byOffset[index].id) }
                    index -= 1
                }
                if first == nil {
                    for id in fromEnd where windows[id]!.positions.contains(position) { found.append(id) }
                }
            }
            if found.count > 1 {
                found = Array(Set(found))
                found.sort()
            }
            return found
        }

        /// Where a window's positions end in the controller's ordering, unclipped by the end of the results.
        @inlinable func windowEnd(_ id: UInt64) -> Int {
            switch windows[id]!.range {
            case .first(let limit): limit
            case .last: Int.max
            case .range(let offset, let limit): Self.end(from: offset, limit: limit)
            }
        }

        /// `offset + limit`, or `Int.max` past it: a server makes windows from what its clients send, and the
        /// largest offsets and limits are windows like any other (empty, or reaching the end).
        @inlinable static func end(from offset: Int, limit: Int) -> Int {
            let (end, overflow) = offset.addingReportingOverflow(limit)
            return overflow ? .max : end
        }
    }

    @usableFromInline let state = _Lock(State())

    @inlinable init() {}

    /// Turns one change set of the controller, queued for its observers, into the change sets of the windows
    /// it changes, and returns what delivers them, in order with the controller's deliveries.
    ///
    /// Called under the controller's lock.
    ///
    /// - Complexity: O(*k* log *n*) for a change set of *k* entities, once, plus each window's share (see
    ///   ``_WindowDiff/changeSet(_:from:to:in:)``).
    @inlinable func follow(
        _ changes: ChangeSet<Entity>, after storage: _SectionedStorage<Entity>, rebuilds: UInt64,
        scheduler: CallbackScheduler, controller: FetchedResultsController<Entity>
    ) -> (@Sendable () -> Void)? {
        var wakes: [_UpdateWaiter] = []
        let deliveries = state.withLock { state -> [_ControllerState<Entity>.Delivery] in
            let before = state.previous ?? storage
            let rebuilt = state.rebuilds.map { $0 != rebuilds } ?? false
            state.previous = state.versionHolders > 0 ? storage : nil
            state.rebuilds = rebuilds
            guard !state.windows.isEmpty else { return [] }
            if rebuilt && state.versionHolders > 0 {
                // Each window that holds versions keeps its entities as they were before the rebuild, for its next
                // version to undo to, whether or not this change set gives it one.
                for id in state.windows.keys where state.windows[id]!.keepsHistory {
                    state.windows[id]!.rebuilt(from: before)
                }
            }
            let global = _GlobalChanges(changes, after: storage)
            let countBefore = storage.count - changes.insertedItemIDs.count + changes.deletedItemIDs.count
            var deliveries: [_ControllerState<Entity>.Delivery] = []
            for id in state.windows(changedBy: global) {
                let old = state.windows[id]!.positions
                let new = state.windows[id]!.range.positions(count: storage.count)
                // A window that holds all the results before and after shows them as the controller does: its
                // change set is the controller's as it is, moves included, rather than worked out again.
                let holdsAll = old == 0..<countBefore && new == 0..<storage.count
                let windowChanges = holdsAll ? changes : _WindowDiff.changeSet(global, from: old, to: new, in: storage)
                state.windows[id]!.positions = new
                guard !windowChanges.isEmpty else { continue }
                let delivery = state.windows[id]!.deliver(
                    windowChanges, from: before, at: old, after: storage, scheduler: scheduler, waking: &wakes)
                if let delivery { deliveries.append(delivery) }
            }
            return deliveries
        }
        guard !deliveries.isEmpty || !wakes.isEmpty else { return nil }
        return { [weak controller, wakes] in
            wakes.forEach { $0.resume() }
            controller?._deliver(deliveries)
        }
    }
}
