/// A scrape in Prometheus' text exposition format, read back: each sample's value by its series (the name, with its
/// labels as written), and each metric's type, for tests that check what `/metrics` says.
///
/// ```swift
/// let scrape = try PrometheusScrape(registry.emitToString())
/// #expect(scrape.types["liveresults_streams_open"] == "gauge")
/// #expect(scrape["liveresults_streams_open"] == 1)
/// ```
public struct PrometheusScrape: Sendable {
    /// A line that is neither a comment, a blank nor `series value`.
    public struct Malformed: Error, CustomStringConvertible {
        /// The line.
        public var line: String
        public var description: String { "not a Prometheus sample: \(line)" }
    }

    /// Each sample's value, by its series as written (`name` or `name{label="value"}`).
    public private(set) var samples: [String: Double] = [:]
    /// Each metric's type (`counter`, `gauge`, `histogram`…) from its `# TYPE` line.
    public private(set) var types: [String: String] = [:]

    /// Reads `text`.
    ///
    /// - Throws: ``Malformed`` for a line that is not a sample, a comment or a blank.
    /// - Complexity: O(*n*) for *n* characters.
    public init(_ text: String) throws {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let words = line.split(separator: " ")
                if words.count == 4 { types[String(words[2])] = String(words[3]) }
                continue
            }
            if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) { continue }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw Malformed(line: String(line))
            }
            samples[String(line[..<space])] = value
        }
    }

    /// The value of the unlabelled series `name`; `nil` when the scrape has none.
    ///
    /// - Complexity: O(1).
    public subscript(_ name: String) -> Double? { samples[name] }
}
