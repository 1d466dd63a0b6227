/// The known name nearest to a mistyped one, for "did you mean" hints.
enum ClosestName {
    /// The candidate with the fewest typing slips from `name` (ignoring case), when it is close enough to
    /// be a typo: one slip, or one per three characters of the shorter name. Ties go to the earlier
    /// candidate.
    /// - Parameters:
    ///   - name: what was typed.
    ///   - candidates: the names that exist.
    /// - Returns: the suggestion, or `nil` when nothing is close.
    static func suggestion(for name: String, among candidates: [String]) -> String? {
        let typed = Array(name.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let known = Array(candidate.lowercased())
            let distance = editDistance(typed, known)
            guard distance <= max(1, min(typed.count, known.count) / 3) else { continue }
            if best.map({ distance < $0.distance }) ?? true { best = (candidate, distance) }
        }
        return best?.name
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
    /// neighbouring characters (the commonest slip, `hots` for `host`) each count one.
    /// - Parameters:
    ///   - a: one text.
    ///   - b: the other.
    /// - Returns: the fewest such edits that turn `a` into `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        // Three rows of the usual table: the one before the previous is needed for swaps.
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j - 1] + cost, previous[j] + 1, current[j - 1] + 1)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
