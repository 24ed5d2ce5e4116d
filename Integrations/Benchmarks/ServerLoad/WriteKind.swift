/// What a write does.
enum WriteKind: UInt8, CaseIterable {
    case priority, title, project, create, delete

    var name: String {
        switch self {
        case .priority: "priority"
        case .title: "title"
        case .project: "project"
        case .create: "POST"
        case .delete: "DELETE"
        }
    }

    /// 40% priority, 20% title, 20% project, 10% POST, 10% DELETE.
    static func random() -> WriteKind {
        switch Int.random(in: 0..<10) {
        case 0..<4: .priority
        case 4..<6: .title
        case 6..<8: .project
        case 8: .create
        default: .delete
        }
    }
}
