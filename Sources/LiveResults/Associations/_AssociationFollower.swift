/// The subscription of a live association to its related source, and the controllers it tells.
///
/// It subscribes when the association is made and stays subscribed for the association's life, so that a
/// controller that starts using the association finds it already following: an event can never fall
/// between a controller's first request and the subscription. A batch of events with no controller
/// attached costs its reduction and nothing else.
///
/// Controllers are held weakly and attach once per association; a controller that is gone is forgotten
/// at the next batch. Each batch is reduced once (``_RelatedChanges``) and handed to each controller
/// outside the follower's lock, so a controller's lock is never taken inside it.
@usableFromInline final class _AssociationFollower: Sendable {
    @usableFromInline struct Attachment: Sendable {
        @usableFromInline weak var listener: (any _RelatedChangesListener)?
        @usableFromInline let association: ObjectIdentifier

        @inlinable init(_ listener: any _RelatedChangesListener, association: ObjectIdentifier) {
            self.listener = listener
            self.association = association
        }
    }

    /// The attached controllers, by identity.
    @usableFromInline let attachments = _Lock<[ObjectIdentifier: Attachment]>([:])
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

    /// Tells `listener` of every later batch, as changes of the association with identity `association`.
    ///
    /// - Complexity: O(1) on average.
    @inlinable func attach(_ listener: any _RelatedChangesListener, association: ObjectIdentifier) {
        attachments.withLock { $0[ObjectIdentifier(listener)] = Attachment(listener, association: association) }
    }

    /// Hands a batch to every attached controller, forgetting those that are gone.
    ///
    /// - Complexity: O(*c*) for *c* attached controllers, plus each controller's work.
    @usableFromInline func deliver(_ changes: _RelatedChanges) {
        guard changes.invalidates || !changes.values.isEmpty else { return }
        let attached = attachments.withLock { attachments in
            attachments = attachments.filter { $0.value.listener != nil }
            return Array(attachments.values)
        }
        for attachment in attached {
            attachment.listener?.relatedChangesArrived(changes, association: attachment.association)
        }
    }

    deinit {
        subscription.withLock { $0 }?.cancel()
    }
}
