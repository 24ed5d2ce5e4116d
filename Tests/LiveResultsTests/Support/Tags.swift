import Testing

extension Tag {
    /// Tests where threads or tasks meet: events from many threads, observers, deliveries, requests in flight.
    /// `.ci/run tsan` runs these, and only these, under ThreadSanitizer: the single-threaded data-structure and
    /// model tests gain nothing from it and would take most of its time.
    @Tag static var concurrent: Self
}
