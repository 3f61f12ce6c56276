/// Why a key source could not deliver a usable document. `reason` is a stable
/// snake_case name, used as the key of the failure counters.
public struct KeySourceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, CaseIterable {
        case connect
        case timeout
        case tls
        case httpStatus = "http_status"
        case tooLarge = "too_large"
        case notJSON = "not_json"
        case redirect
        case refusedURL = "refused_url"
        case truncated
        /// The document is JSON but not a key set, or no key in it is usable.
        case badDocument = "bad_document"
        /// The source is refused as configured, before any fetch (a provider preset without its audience).
        case badConfiguration = "bad_configuration"
        case other
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
