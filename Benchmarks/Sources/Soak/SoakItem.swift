import Foundation
import LiveResults

/// The soak's entity: few sections and few scores, so that sections come and go and ties are common
/// (the insertion order decides them), and `Codable` for the saved results.
struct SoakItem: FetchableEntity, Codable, Hashable {
    var id: Int
    var section: String
    var score: Int
    var title: String
}

/// The section names the soak uses.
let soakSections = (0..<8).map { "s\($0)" }
