/// How long an ``Association`` pauses its requests after one failed: a ``Backoff``, the type retries
/// use too.
///
/// After a request throws, reads of values that are not cached return `nil` and request nothing for
/// `initialDelay`; each further failure in a row doubles the pause, up to `maximumDelay`. A request that
/// succeeds ends the backoff. The pause is the backoff's ``Backoff/delay(afterFailures:)``: its jitter
/// does not apply.
public typealias AssociationBackoff = Backoff
