/// A dry run of the chain for one request (`GET /filters/explain`): what each filter said, in order,
/// and the decision that follows.
public struct FilterExplanation: Sendable, Equatable {
    /// One filter's verdict.
    public struct Step: Sendable, Equatable {
        /// The filter's name.
        public var filter: String
        /// The condition that failed; `nil` when this filter owns the request.
        public var failed: FilterCondition?
        /// Whether the chain stopped at an earlier owner, so this filter was never asked.
        public var notReached: Bool

        /// `owns`, `not reached`, or the failed condition's name (`host`, `header User-Agent`).
        public var verdict: String {
            if notReached { return "not reached" }
            return failed.map(\.description) ?? "owns"
        }
    }

    /// Every filter in chain order.
    public var steps: [Step]
    /// The decision: the owner's, or the default policy's when `owner` is `nil`.
    public var decision: FilterDecision
    /// The owning filter's name, `nil` when the default policy applies.
    public var owner: String? { decision.filterName }
}
