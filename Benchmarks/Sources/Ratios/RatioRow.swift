/// One line of the report: a measured value, and the target it must meet.
struct RatioRow {
    enum Target {
        case atLeast(Double)
        case atMost(Double)
        /// Shown for context, with no target of its own.
        case none

        func isMet(by value: Double) -> Bool? {
            switch self {
            case .atLeast(let bound): value >= bound
            case .atMost(let bound): value <= bound
            case .none: nil
            }
        }

        func description(unit: String) -> String {
            switch self {
            case .atLeast(let bound): "≥ \(bound.compact)\(unit)"
            case .atMost(let bound): "≤ \(bound.compact)\(unit)"
            case .none: "(info)"
            }
        }
    }

    var name: String
    var measured: String
    var value: Double
    var unit: String
    var target: Target

    var result: String {
        switch target.isMet(by: value) {
        case true?: "PASS"
        case false?: "FAIL"
        case nil: ""
        }
    }

    var cells: [String] {
        [name, measured, "\(value.formatted(digits: 3))\(unit)", target.description(unit: unit), result]
    }

    static let headers = ["Target pair", "Measured", "Value", "Target", "Result"]
}

extension [RatioRow] {
    /// The rows as a table with aligned columns.
    var table: String {
        let lines = [RatioRow.headers] + map(\.cells)
        let widths = RatioRow.headers.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
        let rule = widths.map { String(repeating: "-", count: $0) }
        return ([lines[0], rule] + lines.dropFirst())
            .map { zip($0, widths).map { $0.padding(toLength: $1) }.joined(separator: "  ").trimmingTrailingSpaces() }
            .joined(separator: "\n")
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        self + String(repeating: " ", count: max(0, length - count))
    }

    fileprivate func trimmingTrailingSpaces() -> String {
        var trimmed = self
        while trimmed.last == " " { trimmed.removeLast() }
        return trimmed
    }
}
