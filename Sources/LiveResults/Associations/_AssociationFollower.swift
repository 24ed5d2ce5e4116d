/// The subscription of a live association to its related source, and the controllers it tells.
///
/// It subscribes when the association is made and stays subscribed for the association's life, so that a
/// controller that starts using the association finds it already following: an event can never fall
/// between a controller's first request and the subscription. A batch of events with no controller
/// holding its keys costs its reduction and nothing else.
///
/// Controllers are held weakly. Each tells the follower, under its own lock and in order, which keys it
/// holds (served or requested: see ``_AssociationCache/referenceChanges``), so that a batch reaches the
/// controllers holding one of its keys and no others: a related row's change costs the controllers that
/// show it, however many follow the relation. Each batch is reduced once (``_RelatedChanges``) and handed
/// to those controllers outside the follower's lock, so a controller's lock is never taken inside it (the
/// lock order is controller, then follower).
@usableFromInline final class _AssociationFollower: Sendable {
    @usableFromInline struct Attachment: Sendable {
        @usableFromInline weak var listener: (any _RelatedChangesListener)?
        @usableFromInline let association: ObjectIdentifier

        @inlinable init(_ listener: any _RelatedChangesListener, association: ObjectIdentifier) {
            self.listener = listener
            self.association = association
        }
    }

    /// The attached controllers and the keys each holds.
    @usableFromInline struct Listeners: Sendable {
        @usableFromInline var attachments: [ObjectIdentifier: Attachment] = [:]
        /// The controllers holding each key.
        @usableFromInline var holders: [_AssociationKey: Set<ObjectIdentifier>] = [:]
        /// The keys each controller holds.
        @usableFromInline var held: [ObjectIdentifier: Set<_AssociationKey>] = [:]

        @inlinable init() {}

        @inlinable mutating func reference(_ changes: [_AssociationKey: Bool], by listener: ObjectIdentifier) {
            for (key, isHeld) in changes {
                if isHeld {
                    holders[key, default: []].insert(listener)
                    held[listener, default: []].insert(key)
                } else {
                    forget(key, by: listener)
                    held[listener]?.remove(key)
                }
            }
        }

        @inlinable mutating func forget(_ key: _AssociationKey, by listener: ObjectIdentifier) {
            if holders[key]?.remove(listener) != nil, holders[key]!.isEmpty { holders[key] = nil }
        }

        /// The attachments of the controllers a batch concerns: those holding one of its keys, or every one
        /// for an invalidation. Controllers that are gone are forgotten.
        @inlinable mutating func concerned(by changes: _RelatedChanges) -> [Attachment] {
            var ids = Set<ObjectIdentifier>()
            if changes.invalidates {
                ids = Set(attachments.keys)
            } else {
                for key in changes.values.keys { ids.formUnion(holders[key] ?? []) }
            }
            var concerned: [Attachment] = []
            concerned.reserveCapacity(ids.count)
            for id in ids {
                guard let attachment = attachments[id] else { continue }
                if attachment.listener != nil {
                    concerned.append(attachment)
                } else {
                    detach(id)
                }
            }
            return concerned
        }

        @inlinable mutating func detach(_ id: ObjectIdentifier) {
            attachments[id] = nil
            for key in held.removeValue(forKey: id) ?? [] { forget(key, by: id) }
        }
    }

    @usableFromInline let listeners = _Lock(Listeners())
    /// Set once, right after the subscription is made; cancelled when the association goes.
    @usableFromInline let subscription = _Lock<EventSubscription?>(nil)

    /// Subscribes to `source`. An event the source cannot decode invalidates the cache: a change may have
    /// been missed, so the values are requested again when next read.
    @inlinable init<Source: EventSource>(following source: Source) {
        let subscriber = EventSubscriber<Source.Entity>(
            receive: { [weak self] events in self?.deliver(_RelatedChanges(events)) },
            reportMalformedEvent: { [weak self] _ in self?.deliver(_RelatedChanges(invalidates: true)) })
        let subscription = source.subscribe(subscriber)
        self.subscription.withLock { $0 = subscription }
    }

    /// Tells `listener` of every later batch that concerns a key it holds, as changes of the association
    /// with identity `association`.
    ///
    /// - Complexity: O(1) on average.
    @inlinable func attach(_ listener: any _RelatedChangesListener, association: ObjectIdentifier) {
        listeners.withLock {
            $0.attachments[ObjectIdentifier(listener)] = Attachment(listener, association: association)
        }
    }

    /// Forgets a controller that is going away, and the keys it held.
    ///
    /// - Complexity: O(*r*) on average for the *r* keys it held.
    @inlinable func detach(_ listener: ObjectIdentifier) {
        listeners.withLock { $0.detach(listener) }
    }

    /// Records the keys a controller started (`true`) or stopped (`false`) holding.
    ///
    /// - Complexity: O(*r*) on average for *r* changes.
    @inlinable func reference(_ changes: [_AssociationKey: Bool], by listener: ObjectIdentifier) {
        listeners.withLock { $0.reference(changes, by: listener) }
    }

    /// Hands a batch to every attached controller holding one of its keys.
    ///
    /// - Complexity: O(*k* + *c*) for *k* changed keys and *c* controllers holding them, plus each
    ///   controller's work; O(every controller) for an invalidation.
    @usableFromInline func deliver(_ changes: _RelatedChanges) {
        guard changes.invalidates || !changes.values.isEmpty else { return }
        for attachment in listeners.withLock({ $0.concerned(by: changes) }) {
            attachment.listener?.relatedChangesArrived(changes, association: attachment.association)
        }
    }

    deinit {
        subscription.withLock { $0 }?.cancel()
    }
}
