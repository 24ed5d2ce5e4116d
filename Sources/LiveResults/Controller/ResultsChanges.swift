/// The change sets of a controller (or of a ``CollapsibleSections`` view) from the moment the sequence
/// was made: each exactly once, in the order the mutations happened. Made by
/// ``FetchedResultsController/changes``, ``FetchedResultsController/changes(bufferingPolicy:)`` and
/// ``CollapsibleSections/changes``.
///
/// The subscription starts when the sequence is made, not when it is first iterated, and the sequence
/// owns it: it ends when the sequence and its iterators are released. Change sets delivered before the
/// first `next()` wait in the buffer, as the ``BufferingPolicy`` allows. Iterate it from one task at a
/// time.
///
/// The sequence finishes (`next()` returns `nil`) after the change sets it buffered, when the controller
/// (or the view) is released, or when the task waiting in `next()` is cancelled.
///
/// ```swift
/// let changes = controller.changes   // subscribed from here
/// Task {
///     for await changeSet in changes { render(changeSet) }
/// }
/// ```
public struct ResultsChanges<Entity: FetchableEntity>: AsyncSequence, Sendable {
    /// A change set.
    public typealias Element = ChangeSet<Entity>
    /// The sequence never throws.
    public typealias Failure = Never

    /// How many change sets a subscription keeps while its consumer has not read them.
    ///
    /// A policy that drops change sets breaks the chain of change sets: after a drop, start over from the
    /// controller's ``FetchedResultsController/snapshot`` rather than applying the next change set to what
    /// you have.
    public enum BufferingPolicy: Sendable, Hashable {
        /// Every change set is kept until read (the default).
        case unbounded
        /// At most this many unread change sets are kept; later ones are dropped until the consumer reads.
        case bufferingOldest(Int)
        /// At most this many unread change sets are kept; a new one drops the oldest unread one.
        case bufferingNewest(Int)
    }

    @usableFromInline let _subscription: _ChangeSubscription<Entity>

    @inlinable init(_subscription: _ChangeSubscription<Entity>) {
        self._subscription = _subscription
    }

    /// Makes an iterator. Iterators of one sequence share its subscription: each change set goes to one
    /// of them.
    ///
    /// - Complexity: O(1).
    @inlinable public func makeAsyncIterator() -> Iterator {
        Iterator(_subscription: _subscription)
    }

    /// Reads the change sets in order. `Sendable`: it may be handed to the task that reads.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        @usableFromInline let _subscription: _ChangeSubscription<Entity>

        @inlinable init(_subscription: _ChangeSubscription<Entity>) {
            self._subscription = _subscription
        }

        /// The next change set, waiting for it; `nil` when the sequence is finished.
        ///
        /// It runs on the caller's executor: a change set already buffered is read without a hop to
        /// another thread and back.
        ///
        /// - Complexity: O(1).
        @inlinable nonisolated(nonsending) public mutating func next() async -> ChangeSet<Entity>? {
            await _subscription.subscriber.next()
        }

        /// The next change set, waiting for it on `actor`; `nil` when the sequence is finished. `for await`
        /// loops call it, so that they read on their own executor.
        ///
        /// - Complexity: O(1).
        @inlinable public mutating func next(isolation actor: isolated (any Actor)?) async -> ChangeSet<Entity>? {
            await next()
        }
    }
}
