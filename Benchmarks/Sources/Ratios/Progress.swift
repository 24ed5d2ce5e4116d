import Foundation

/// Progress messages, on standard error so that standard output holds only the report.
enum Progress {
    static func say(_ message: String) {
        FileHandle.standardError.write(Data("… \(message)\n".utf8))
    }
}
