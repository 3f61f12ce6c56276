extension VerifiedTokenCache {
    /// Size and admission limits, fixed at init.
    public struct Configuration: Sendable {
        /// Entries across all shards.
        public var capacity: Int
        /// Longer tokens are never cached (they are rare and costly to keep).
        public var maxTokenSize: Int
        public var shards: Int

        public init(capacity: Int = 16_384, maxTokenSize: Int = 4096, shards: Int = 16) {
            self.capacity = capacity
            self.maxTokenSize = maxTokenSize
            self.shards = shards
        }
    }
}
