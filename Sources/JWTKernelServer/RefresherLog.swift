public import JWTKernelRemote
public import Logging

extension KeyRefresherEvent {
    /// The level an event is logged at: failures and withdrawals `warning`, stale keys `warning` too (tokens
    /// are being accepted with keys past their freshness), the first success after failures `info`, routine
    /// refreshes `debug`.
    public var logLevel: Logger.Level {
        switch kind {
        case .fetchFailed, .documentFailed, .keysWithdrawn, .keysStale: return .warning
        case .keysRefreshed, .keysNotModified, .documentRefreshed: return byUnknownKid ? .info : .debug
        }
    }

    /// The log line's message (constant per kind, so logs group by it) and structured metadata:
    /// `jwtk.issuer`, `jwtk.url`, `jwtk.reason`, `jwtk.error`, `jwtk.event`, and counts where they apply.
    public var logMessage: Logger.Message {
        switch kind {
        case .keysRefreshed: return "JWKS refreshed"
        case .keysNotModified: return "JWKS not modified"
        case .fetchFailed:
            return keysHeld
                ? "JWKS fetch failed; serving the last good keys"
                : "JWKS fetch failed; no keys for this issuer yet: its tokens are refused (keys_unavailable)"
        case .keysStale: return "JWKS keys are stale: refreshes keep failing"
        case .keysWithdrawn: return "JWKS keys withdrawn: no successful refresh within max staleness"
        case .documentRefreshed: return "OpenID discovery document refreshed"
        case .documentFailed: return "OpenID discovery document fetch failed"
        }
    }

    public var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = ["jwtk.event": "\(kind.rawValue)", "jwtk.issuer": "\(issuer)"]
        if let url { metadata["jwtk.url"] = "\(url)" }
        if let reason { metadata["jwtk.reason"] = "\(reason)" }
        if let message { metadata["jwtk.error"] = "\(message)" }
        switch kind {
        case .keysRefreshed:
            metadata["jwtk.keys_loaded"] = "\(keysLoaded)"
            if keysRejected > 0 { metadata["jwtk.keys_rejected"] = "\(keysRejected)" }
        case .fetchFailed, .documentFailed:
            metadata["jwtk.consecutive_failures"] = "\(consecutiveFailures)"
        default: break
        }
        if byUnknownKid { metadata["jwtk.trigger"] = "unknown_kid" }
        return metadata
    }
}

extension Logger {
    /// Logs one refresher event at its level, with its metadata.
    public func log(_ event: KeyRefresherEvent) {
        log(level: event.logLevel, event.logMessage, metadata: event.logMetadata)
    }

    /// A logger that discards everything: the default of `KeyRefresherService`.
    public static var jwtKernelNoOp: Logger { Logger(label: "jwt-kernel", factory: { _ in SwiftLogNoOpLogHandler() }) }
}
