import Foundation

/// One window's state, under its registry's lock: the positions it holds, its observers and its versions.
@usableFromInline struct _WindowState<Entity: FetchableEntity>: Sendable {
    /// A version of the window kept for a catch-up: its number, the positions held, and what turns the
    /// window's entities then back into those of the version before it.
    ///
    /// It keeps its change, not the controller's results: the entities of a held version are the window's
    /// current ones with the later versions undone (``entities(atVersion:from:)``). A snapshot of the results
    /// per version made each change of the controller copy the path to what it changed once per version held,
    /// and kept those copies as long as the version (about 1 KB each).
    @usableFromInline struct HeldVersion: Sendable {
        @usableFromInline let sequence: UInt64
        @usableFromInline let positions: Range<Int>
        /// The window's entities before the change set that led to this version, as the change set touched
        /// them (or all of them, after a rebuild); empty for the first version held, which is never undone.
        @usableFromInline let undo: _VersionUndo<Entity>
        /// The sum of the digests of the window's entities then, when versions are named by their contents.
        @usableFromInline var contentSum: UInt64?

        @inlinable init(sequence: UInt64, positions: Range<Int>, undo: _VersionUndo<Entity>, contentSum: UInt64?) {
            self.sequence = sequence
            self.positions = positions
            self.undo = undo
            self.contentSum = contentSum
        }

        /// The digest that names this version's contents; `nil` when they are not digested.
        @inlinable var digest: UInt64? {
            contentSum.map { _ContentDigest.finish($0, count: positions.count) }
        }
    }

    /// Digests one entity, for versions named by contents; `nil` when it does not encode.
    @usableFromInline typealias EntityDigest = @Sendable (Entity) -> UInt64?

    @usableFromInline var range: WindowRange
    /// The positions held in the results the controller's observers have.
    @usableFromInline var positions: Range<Int>

    @usableFromInline weak var delegate: (any FetchedResultsControllerDelegate<Entity>)?
    /// Its `changes` sequences and handlers; its deliveries go through the controller's queue.
    @usableFromInline var subscribers = _ControllerState<Entity>.Engine.Subscribers()
    @usableFromInline var updateSubscribers: [UInt64: _UpdateSubscriber<Entity>] = [:]

    /// The origin of the window's versions: random per window, so that another window's version is not taken
    /// for one of this window's.
    @usableFromInline let origin = UInt64.random(in: .min ... .max)
    /// The number of change sets the window delivered: its version.
    @usableFromInline var sequence: UInt64 = 0
    /// The versions a catch-up can start from, oldest first, once an update stream was opened.
    @usableFromInline var history: [HeldVersion] = []
    @usableFromInline var keepsHistory = false
    /// The origin of versions named by the window's contents, and how to digest them; `nil` while versions
    /// are the window's own (see ``LiveWindow/nameVersionsByContents(scope:)``).
    @usableFromInline var contentNaming: (origin: UInt64, digest: EntityDigest)?
    /// The digests that name the last ``namedLimit`` versions, by number: more than the versions held, so that
    /// an update still queued for a slow stream (at most its buffer limit behind), and its base, keep their
    /// names after their contents are released.
    @usableFromInline var contentNames: [UInt64: UInt64] = [:]

    @inlinable init(range: WindowRange, positions: Range<Int>) {
        self.range = range
        self.positions = positions
    }

    /// The most versions the window holds for a catch-up: 128 more than the deepest buffer of its update
    /// streams, so that a stream that overflows its buffer (and then resumes from the last version it read)
    /// gets a catch-up rather than the whole window; between 256 and 1,024.
    @usableFromInline var heldLimit = 256

    /// Lets the window hold enough versions for a stream of `bufferLimit`.
    @inlinable mutating func holdVersions(forBufferLimit bufferLimit: Int) {
        // Clamped before the sum: a limit near `Int.max` ("never drop anything") must not overflow.
        heldLimit = Swift.max(heldLimit, Swift.min(1_024, Swift.min(bufferLimit, 1_024) + 128))
    }

    /// The window's entities before the first rebuild of the controller since its last version, if any: the
    /// undo of its next version (see ``rebuilt(from:)``).
    @usableFromInline var replacedByRebuild: _VersionUndo<Entity>?

    /// The most versions whose names by contents a window keeps.
    @inlinable static var namedLimit: UInt64 { 4096 }

    /// Whether anything observes the window's change sets.
    @inlinable var hasObservers: Bool {
        delegate != nil || !subscribers.isEmpty || !updateSubscribers.isEmpty
    }

    /// Counts a change set of the window as a new version, keeps it for catch-ups and hands it to the
    /// update streams, and returns its delivery for the other observers, if any.
    ///
    /// - Parameters:
    ///   - changes: The window's change set, from the entities of `before` at `previousPositions` to those of
    ///     `storage` at ``positions``.
    ///   - before: The controller's results the window's last version read, or results that hold its entities
    ///     as they were then (the entities the change set removes or replaces are read there).
    ///   - wakes: Receives the streams' waiting consumers, to resume once the locks are released.
    @inlinable mutating func deliver(
        _ changes: ChangeSet<Entity>, from before: _SectionedStorage<Entity>, at previousPositions: Range<Int>,
        after storage: _SectionedStorage<Entity>, scheduler: CallbackScheduler, waking wakes: inout [_UpdateWaiter]
    ) -> _ControllerState<Entity>.Delivery? {
        sequence += 1
        let snapshot = FetchedResultsSnapshot(_storage: storage, _window: _WindowSlice(positions, in: storage))
        // The entities the change set inserts and updates, read once for both the digests and the streams.
        let entered =
            updateSubscribers.isEmpty && !(keepsHistory && contentNaming != nil)
            ? nil
            : (
                inserted: changes.insertedItems.map { snapshot.object(at: $0) },
                updated: changes.updatedItems.map { snapshot.object(at: $0) }
            )
        if keepsHistory {
            let undo = replacedByRebuild ?? Self.undo(of: changes, from: before)
            replacedByRebuild = nil
            hold(storage, undo: undo, after: (changes, before, entered))
        }
        if let entered, !updateSubscribers.isEmpty {
            // Named here, under the lock already held, rather than by each stream taking it again.
            let delivered = _VersionChanges(
                changes, inserted: entered.inserted, updated: entered.updated, sequence: sequence,
                names: contentNaming == nil ? nil : (name(of: sequence), name(of: sequence - 1)))
            for subscriber in updateSubscribers.values {
                if let waiter = subscriber.push(.changes(delivered)).waiter { wakes.append(waiter) }
            }
        }
        return subscribers.delivery(
            changes, after: { snapshot }, delegate: delegate, scheduler: scheduler, version: sequence)
    }

    /// Keeps the current version, whose entities are those of `storage` at ``positions``, for a catch-up,
    /// dropping the oldest beyond the limit.
    ///
    /// - Parameters:
    ///   - undo: What turns the current version's entities back into the last held version's.
    ///   - changes: The change set that led to the current version from the last held one, the results
    ///     before it, and the entities it inserted and updated, in its order: its contents are then digested
    ///     from that version's.
    @inlinable mutating func hold(
        _ storage: _SectionedStorage<Entity>, undo: _VersionUndo<Entity> = _VersionUndo(),
        after changes: (
            changeSet: ChangeSet<Entity>, before: _SectionedStorage<Entity>,
            entered: (inserted: [Entity], updated: [Entity])?
        )? = nil
    ) {
        var contentSum: UInt64?
        if let digest = contentNaming?.digest {
            if let changes, let sum = history.last?.contentSum {
                if let entered = changes.entered, let left = Self.left(by: changes.changeSet, undo: undo) {
                    contentSum = Self.contentSum(
                        sum, leaving: left, entering: entered.inserted + entered.updated, digest: digest)
                } else {
                    contentSum = Self.contentSum(
                        sum, from: changes.before, to: storage, by: changes.changeSet, digest: digest)
                }
            } else {
                contentSum = Self.contentSum(of: storage, at: positions, digest: digest)
            }
        }
        // Dropped a quarter at a time: one shift of the array per `heldLimit / 4` versions, not one per version.
        if history.count >= heldLimit + heldLimit / 4 { history.removeFirst(history.count - heldLimit + 1) }
        let held = HeldVersion(sequence: sequence, positions: positions, undo: undo, contentSum: contentSum)
        history.append(held)
        if let digest = held.digest { remember(digest, of: sequence) }
    }

    /// Keeps the window's entities in `before`, the results before a rebuild of the controller (a fetch, a
    /// resort, a reset), for its next version to undo to: a rebuild may number entities anew or change the
    /// order, so that the entities of earlier versions could not be put back among the current ones. The first
    /// rebuild since the last version is the one kept.
    ///
    /// - Complexity: O(*w* log *n*) for a window of *w* entities.
    @inlinable mutating func rebuilt(from before: _SectionedStorage<Entity>) {
        guard replacedByRebuild == nil, !history.isEmpty else { return }
        var undo = _VersionUndo<Entity>()
        undo.recordReplacement(of: Self.entities(of: before, at: positions))
        replacedByRebuild = undo
    }

    /// What turns the window's entities after `changes` back into those before it: the stored versions, in
    /// `before`, of the entities it removed or changed, and the ids of those it added.
    ///
    /// - Complexity: O(*k* log *n*) for *k* changed entities.
    @inlinable static func undo(
        of changes: ChangeSet<Entity>, from before: _SectionedStorage<Entity>
    ) -> _VersionUndo<Entity> {
        var undo = _VersionUndo<Entity>()
        undo.entries.reserveCapacity(
            changes.insertedItemIDs.count + changes.deletedItemIDs.count + changes.updatedItemIDs.count)
        for id in changes.insertedItemIDs { undo.record(id, before: nil) }
        for id in changes.deletedItemIDs { undo.record(id, before: before.stored(forID: id)) }
        for id in changes.updatedItemIDs { undo.record(id, before: before.stored(forID: id)) }
        return undo
    }

    /// Keeps the name of version `sequence`, forgetting the one ``namedLimit`` versions before it.
    @inlinable mutating func remember(_ digest: UInt64, of sequence: UInt64) {
        contentNames[sequence] = digest
        if sequence >= Self.namedLimit { contentNames[sequence - Self.namedLimit] = nil }
    }

    /// The sum of the digests of the entities of `storage` at `positions`: a sum, so that a change set updates
    /// it by what it removes and adds, whatever the order (which the contents fix: the query's order).
    ///
    /// - Complexity: O(*w*) digests for *w* positions.
    @inlinable static func contentSum(
        of storage: _SectionedStorage<Entity>, at positions: Range<Int>, digest: EntityDigest
    ) -> UInt64? {
        var sum: UInt64 = 0
        for stored in storage.stored(inGlobalRange: positions) {
            guard let value = digest(stored.entity) else { return nil }
            sum &+= value
        }
        return sum
    }

    /// The entities as they were before `changes` that it deleted or updated, read from its `undo` (which
    /// recorded them in that order, after the inserted ones); `nil` when the undo is a rebuild's.
    ///
    /// - Complexity: O(*k*) for *k* changed entities.
    @inlinable static func left(by changes: ChangeSet<Entity>, undo: _VersionUndo<Entity>) -> [Entity?]? {
        let inserted = changes.insertedItemIDs.count
        guard undo.replaced == nil,
            undo.entries.count == inserted + changes.deletedItemIDs.count + changes.updatedItemIDs.count
        else { return nil }
        return undo.entries[inserted...].map { $0.before?.entity }
    }

    /// `sum` minus the digests of `left` plus those of `entered`; `nil` when an entity is missing or does not
    /// encode.
    ///
    /// - Complexity: O(*k*) digests for *k* entities.
    @inlinable static func contentSum(
        _ sum: UInt64, leaving left: [Entity?], entering entered: [Entity], digest: EntityDigest
    ) -> UInt64? {
        var sum = sum
        for entity in left {
            guard let entity, let value = digest(entity) else { return nil }
            sum &-= value
        }
        for entity in entered {
            guard let value = digest(entity) else { return nil }
            sum &+= value
        }
        return sum
    }

    /// `sum`, the contents' sum of `before`, turned into that of `after` by the window's `changes`: minus what
    /// left or changed, plus what entered or changed.
    ///
    /// - Complexity: O(*k*) digests for *k* changed entities.
    @inlinable static func contentSum(
        _ sum: UInt64, from before: _SectionedStorage<Entity>, to after: _SectionedStorage<Entity>,
        by changes: ChangeSet<Entity>, digest: EntityDigest
    ) -> UInt64? {
        func value(of id: Entity.ID, in storage: _SectionedStorage<Entity>) -> UInt64? {
            storage.stored(forID: id).flatMap { digest($0.entity) }
        }
        var sum = sum
        for id in changes.deletedItemIDs {
            guard let left = value(of: id, in: before) else { return nil }
            sum &-= left
        }
        for id in changes.updatedItemIDs {
            guard let old = value(of: id, in: before), let new = value(of: id, in: after) else { return nil }
            sum = sum &- old &+ new
        }
        for id in changes.insertedItemIDs {
            guard let entered = value(of: id, in: after) else { return nil }
            sum &+= entered
        }
        return sum
    }

    /// Names the window's versions by their contents from now on, the held ones included; `storage` holds
    /// the window's current entities at ``positions``.
    ///
    /// - Complexity: O(*h* *w*) for *h* held versions of *w* entities, the first time.
    @inlinable mutating func nameVersionsByContents(
        origin: UInt64, digest: @escaping EntityDigest, from storage: _SectionedStorage<Entity>
    ) {
        guard contentNaming?.origin != origin else { return }
        contentNaming = (origin, digest)
        // Newest first, each version's entities made from the next one's by its undo.
        var entities = Self.entities(of: storage, at: positions)
        for index in history.indices.reversed() {
            history[index].contentSum = Self.contentSum(of: entities, at: 0..<entities.count, digest: digest)
            if let name = history[index].digest { remember(name, of: history[index].sequence) }
            history[index].undo.undo(&entities)
        }
    }

    /// What the stream names the version numbered `sequence`: after its contents when they were digested,
    /// else the window's own name.
    ///
    /// - Complexity: O(1).
    @inlinable func name(of sequence: UInt64) -> ResultsVersion {
        if let contentNaming, let digest = contentNames[sequence] {
            return ResultsVersion(origin: contentNaming.origin, sequence: digest)
        }
        return ResultsVersion(origin: origin, sequence: sequence)
    }

    /// The number of the held version that `version` names: one of the window's own, or, when versions are
    /// named by contents, the latest held one with those contents (another process's window at the same
    /// contents named it alike); `nil` when none is held.
    ///
    /// - Complexity: O(*h*) for *h* held versions.
    @inlinable func heldSequence(for version: ResultsVersion) -> UInt64? {
        if version.origin == origin, history.contains(where: { $0.sequence == version.sequence }) {
            return version.sequence
        }
        guard let contentNaming, version.origin == contentNaming.origin else { return nil }
        return history.last(where: { $0.digest == version.sequence })?.sequence
    }

    /// The window's entities at a held version, as a storage of their own, from `current`, the window's
    /// entities now (``entities(of:at:)``); `nil` when the version is not held.
    ///
    /// - Complexity: O(*k* log *w*) for a window of *w* entities and *k* changes since the version; O(*w*)
    ///   more when a rebuild lies between.
    @inlinable func entities(
        atVersion version: UInt64, from current: _SectionedStorage<Entity>
    ) -> _SectionedStorage<Entity>? {
        guard let index = history.lastIndex(where: { $0.sequence == version }) else { return nil }
        // After a rebuild that gave the window no version, its entities are the same but may be ordered by
        // another rule: the earlier versions are undone from the ones kept before it, in their order.
        var entities = replacedByRebuild?.replaced ?? current
        for held in history[(index + 1)...].reversed() { held.undo.undo(&entities) }
        return entities
    }

    /// The entities of `storage` at `positions`, as a storage of their own, for the wire.
    ///
    /// - Complexity: O(*w* log *n*) for *w* positions.
    @inlinable static func entities(
        of storage: _SectionedStorage<Entity>, at positions: Range<Int>
    ) -> _SectionedStorage<Entity> {
        _SectionedStorage(ordering: storage.ordering, contents: storage.stored(inGlobalRange: positions))
    }
}
