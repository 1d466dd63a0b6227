import CacheCore
import CachePolicy
import Foundation
import Upstream

extension FetchHandler {
    /// Applies the origin's answer to a forwarded `HEAD` to the stored response it could have been chosen
    /// for (RFC 9111 §4.3.5, `HeadUpdate`): a matching `200` freshens it as a 304 would, one describing
    /// another representation deletes it, any other status leaves it. Runs on the storage executor.
    /// - Returns: the updated entry when it was updated, else `nil`.
    /// - Parameters:
    ///   - stored: the stored response the `HEAD` was forwarded for.
    ///   - head: the origin's answer.
    ///   - requestTime: when the `HEAD` was sent.
    ///   - overrides: the owning filter's lifetime overrides.
    func updateStored(
        _ stored: StoredEntry, fromHead head: OriginResponseHead, requestTime: Date, overrides: PolicyOverrides
    ) -> StoredEntry? {
        let outcome = HeadUpdate.outcome(
            status: head.status, headers: head.headers, stored: stored.headers, storedLength: stored.originalSize)
        let lifetimes = StoredEntry.Lifetimes(
            overrides: overrides,
            staleIfDisconnected: service.configuration.staleIfDisconnected,
            revalidationAllowance: service.configuration.revalidationAllowance)
        switch outcome {
        case .none:
            return nil
        case .update:
            if let entry = stored.freshened(
                by: head.headers, requestTime: requestTime, responseTime: service.clock(), lifetimes: lifetimes)
            {
                // Only the body the HEAD was compared with: one written since is the store's (`updateMetadata`
                // matches the body too).
                return (try? service.store.updateMetadata(entry)) == true ? entry : nil
            }
            invalidate(stored)
        case .invalidate:
            invalidate(stored)
        }
        return nil
    }

    /// Deletes the stored response unless another body replaced it meanwhile.
    private func invalidate(_ stored: StoredEntry) {
        guard let current = (try? service.store.entry(for: stored.key)) ?? nil, current.bodyID == stored.bodyID
        else { return }
        _ = try? service.store.delete(stored.key)
    }
}
