/// Anything that can deliver ``EntityEvent``s to subscribers: the event-bus protocol.
///
/// A source hands each subscriber's events to its ``EventSubscriber`` and returns an
/// ``EventSubscription`` that stops the delivery. ``EventBus`` is the in-process implementation;
/// a source that decodes events from a wire reports what it cannot decode with
/// ``EventSubscriber/reportMalformedEvent(_:)``.
///
/// ```swift
/// struct NotificationSource: EventSource {
///     let center: MyNotificationCenter
///     func subscribe(_ subscriber: EventSubscriber<Post>) -> EventSubscription {
///         let token = center.addObserver { payload in
///             do { subscriber.receive(try JSONDecoder().decode(PostChange.self, from: payload).event) }
///             catch { subscriber.reportMalformedEvent(error) }
///         }
///         return EventSubscription { center.removeObserver(token) }
///     }
/// }
/// ```
public protocol EventSource<Entity>: Sendable {
    /// The kind of entity the events are about.
    associatedtype Entity: FetchableEntity

    /// Starts delivering events to `subscriber` until the returned subscription is cancelled.
    func subscribe(_ subscriber: EventSubscriber<Entity>) -> EventSubscription
}
