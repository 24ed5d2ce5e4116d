import ArgumentParser

/// A number of seconds on the command line, kept as written; ``TodoOptions/validate()`` refuses it unless it is
/// from a millisecond (the resolution: less would round to no time at all) to a day.
public struct Seconds: ExpressibleByArgument, Sendable, Equatable {
    /// The number of seconds.
    public var seconds: Double
    /// The value as written.
    public var text: String

    /// The duration, to the millisecond (for a number of seconds from 0.001 to 86400).
    public var duration: Duration { .milliseconds(Int64(seconds * 1_000)) }

    /// Whether the number is from 0.001 to 86400.
    public var isValid: Bool { seconds >= 0.001 && seconds <= 86_400 }

    /// `duration` as a default value, written in seconds.
    public init(_ duration: Duration) {
        seconds = Double(duration / .milliseconds(1)) / 1_000
        text = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    /// Reads `argument` as a number of seconds; `nil` unless it is a number.
    public init?(argument: String) {
        guard let seconds = Double(argument), seconds.isFinite else { return nil }
        self.seconds = seconds
        text = argument
    }

    public var defaultValueDescription: String { text }
}
