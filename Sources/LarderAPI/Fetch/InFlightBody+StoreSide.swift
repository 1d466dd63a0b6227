extension InFlightBody {
    /// Whether the response is stored, and how far the store writer got: what decides who may still join
    /// the fetch (`addReader`) and what memory may let go.
    ///
    ///     undecided ──head admitted──▶ opening ──writer open──▶ writing ──committed──▶ stored
    ///         │                           │                        │
    ///         │ head refused              │ refused, failed        │ refused part way, abandoned, failed
    ///         ▼                           ▼                        ▼
    ///     notStored ◀─────────────────────┴────────────────────────┘
    enum StoreSide {
        /// The response head is not judged yet (or the fetch revalidates): nothing is stored so far.
        case undecided
        /// The response is not stored: judged so on its head, or storing stopped part way (refused,
        /// abandoned, failed), and what was written is gone.
        case notStored
        /// To be stored; the writer is not open yet, so nothing may be let go.
        case opening
        /// Being stored (`Written`).
        case writing(Written)
        /// Committed: the store answers from now on; what was written can still be read back.
        case stored(Written)

        /// The written part, while being stored or once stored.
        var written: Written? {
            switch self {
            case .writing(let written), .stored(let written): written
            case .undecided, .notStored, .opening: nil
            }
        }
    }

    /// What the store writer took: `taken` bytes were handed to it, `readable` can be read back with
    /// `readBack` (`nil` when the store cannot).
    struct Written {
        var taken: Int
        var readable: Int
        let readBack: (@Sendable (Int) throws -> [UInt8])?
    }
}
