import Foundation

#if !canImport(Darwin)
    extension IndexPath {
        /// An index path to an item in a section.
        ///
        /// Darwin's UIKit and AppKit provide this initializer; LiveResults provides it on other platforms.
        @inlinable public init(item: Int, section: Int) {
            self.init(_section: section, item: item)
        }

        /// The section of an index path made by ``init(item:section:)``.
        @inlinable public var section: Int { self[0] }

        /// The item of an index path made by ``init(item:section:)``.
        @inlinable public var item: Int { self[1] }
    }
#endif
