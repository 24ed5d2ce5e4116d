extension LinuxMemoryPressureSource {
    /// The contents of a PSI file, such as `/proc/pressure/memory`:
    ///
    /// ```
    /// some avg10=0.00 avg60=0.00 avg300=0.00 total=0
    /// full avg10=0.00 avg60=0.00 avg300=0.00 total=0
    /// ```
    ///
    /// `some` is the share of time in which at least one task waited for memory; `full`, the share in
    /// which all non-idle tasks waited at once.
    public struct Reading: Sendable, Hashable {
        /// One line of a PSI file.
        public struct Averages: Sendable, Hashable {
            /// The percentage of the last 10 seconds spent waiting.
            public var avg10: Double
            /// The percentage of the last 60 seconds spent waiting.
            public var avg60: Double
            /// The percentage of the last 300 seconds spent waiting.
            public var avg300: Double
            /// The total time spent waiting, in microseconds.
            public var total: UInt64

            /// Creates a line's values.
            @inlinable public init(avg10: Double, avg60: Double, avg300: Double, total: UInt64) {
                self.avg10 = avg10
                self.avg60 = avg60
                self.avg300 = avg300
                self.total = total
            }
        }

        /// The `some` line.
        public var some: Averages
        /// The `full` line; older kernels and the CPU file of the root cgroup have none.
        public var full: Averages?

        /// Creates a reading from its lines.
        @inlinable public init(some: Averages, full: Averages?) {
            self.some = some
            self.full = full
        }

        /// Parses the contents of a PSI file.
        ///
        /// - Returns: The reading, or `nil` when the contents have no well-formed `some` line.
        /// - Complexity: O(*c*) for *c* characters.
        @inlinable public init?(parsing contents: String) {
            var lines: [Substring: Averages] = [:]
            for line in contents.split(whereSeparator: \.isNewline) {
                let fields = line.split(separator: " ")
                guard let kind = fields.first, let averages = Self.averages(fields.dropFirst()) else { continue }
                lines[kind] = averages
            }
            guard let some = lines["some"] else { return nil }
            self.init(some: some, full: lines["full"])
        }

        @inlinable static func averages(_ fields: ArraySlice<Substring>) -> Averages? {
            var values: [Substring: Substring] = [:]
            for field in fields {
                let pair = field.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { return nil }
                values[pair[0]] = pair[1]
            }
            guard let avg10 = values["avg10"].flatMap({ Double($0) }),
                let avg60 = values["avg60"].flatMap({ Double($0) }),
                let avg300 = values["avg300"].flatMap({ Double($0) }),
                let total = values["total"].flatMap({ UInt64($0) })
            else { return nil }
            return Averages(avg10: avg10, avg60: avg60, avg300: avg300, total: total)
        }
    }
}
