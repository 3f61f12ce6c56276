// Sign in with Apple server-to-server notifications: Apple POSTs `{"payload": "<JWT>"}` to the endpoint registered
// for the app; the JWT is signed with the same keys as identity tokens (verify it with
// `ClaimsPolicy.appleServerNotifications(audiences:)`), and its `events` claim is a JSON document inside a string. Shape:
// https://developer.apple.com/documentation/sign_in_with_apple/processing_changes_for_sign_in_with_apple_accounts

/// The claims of a Sign in with Apple server-to-server notification. Unlike an identity token it has no top-level
/// `sub` (so `ClaimsPolicy.apple`, which requires one, refuses it): the user is `event.sub`. Verify and decode with
/// `verify(payload, as: AppleServerNotification.self)` on a verifier with `ClaimsPolicy.appleServerNotifications`.
public struct AppleServerNotification: Sendable, Hashable, Decodable {
    public var iss: String
    /// The app's bundle ID (or the primary App ID of its group).
    public var aud: Audience
    public var iat: NumericDate
    public var exp: NumericDate?
    /// The notification's ID; Apple retries a delivery that did not get a 200, so use it to ignore repeats.
    public var jti: String?
    /// The `events` claim, parsed.
    public var event: AppleAccountEvent

    enum CodingKeys: String, CodingKey {
        case iss, aud, iat, exp, jti
        case event = "events"
    }
}

/// The `events` claim of an `AppleServerNotification`: what changed, for which user.
///
/// Apple sends it as a string holding a JSON object (`"events": "{\"type\":\"consent-revoked\",...}"`), which is
/// parsed with the core's strict JSON parser (`JSONValue.parse`: RFC 8259 only, duplicate names refused, nesting at
/// most `JSONParser.defaultMaxDepth`, at most `JWTVerifier.defaultMaxTokenSize` bytes), never Foundation. A JSON
/// object in place of the string, as Apple's documentation prints it, is accepted too. Text that is not JSON, too
/// deep or too long, a JSON value that is not an object, or a member of the wrong type is a `DecodingError` whose
/// coding path ends at `events`; nothing in it is echoed.
public struct AppleAccountEvent: Sendable, Hashable, Decodable {
    /// `type`. A type Apple adds later is `.other(type)`, so a notification is never lost to an unknown event.
    public var kind: Kind
    /// The user's identifier, the `sub` of their identity tokens.
    public var sub: String
    /// The address whose forwarding changed (`email-disabled`, `email-enabled`).
    public var email: String?
    /// Whether `email` is a private relay address; Apple sends the string `"true"`/`"false"`, a boolean is accepted.
    public var isPrivateEmail: Bool?
    /// `event_time` as sent. Apple's notifications carry milliseconds since 1970 (`1611765847700`); see `eventDate`.
    public var eventTime: Int64?

    public enum Kind: Sendable, Hashable {
        /// `email-disabled`: the user stopped forwarding from their private relay address.
        case emailDisabled
        /// `email-enabled`: the user resumed forwarding from their private relay address.
        case emailEnabled
        /// `consent-revoked`: the user stopped using Sign in with Apple with the app; treat as signed out.
        case consentRevoked
        /// `account-delete`: the user deleted their Apple Account; delete what the app holds for them.
        case accountDelete
        /// Any other type, as sent.
        case other(String)

        public init(rawValue: String) {
            switch rawValue {
            case "email-disabled": self = .emailDisabled
            case "email-enabled": self = .emailEnabled
            case "consent-revoked": self = .consentRevoked
            case "account-delete": self = .accountDelete
            default: self = .other(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .emailDisabled: "email-disabled"
            case .emailEnabled: "email-enabled"
            case .consentRevoked: "consent-revoked"
            case .accountDelete: "account-delete"
            case .other(let type): type
            }
        }
    }

    /// `eventTime` as a date. Apple sends milliseconds, but its documentation's example shows seconds, so a value
    /// too large to be seconds (after the year 5138) is read as milliseconds and any other as seconds.
    public var eventDate: NumericDate? {
        guard let eventTime else { return nil }
        let value = Double(eventTime)
        return NumericDate(secondsSince1970: abs(value) >= 1e11 ? value / 1000 : value)
    }

    enum CodingKeys: String, CodingKey {
        case sub, email
        case kind = "type"
        case isPrivateEmail = "is_private_email"
        case eventTime = "event_time"
    }

    public init(from decoder: any Decoder) throws {
        let object: JSONValue
        switch try JSONValue(from: decoder) {
        case .string(let text): object = try Self.parse(text, codingPath: decoder.codingPath)
        case .object(let members): object = .object(members)
        case let other:
            throw DecodingError.typeMismatch(
                AppleAccountEvent.self,
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "Expected a string holding a JSON object, or an object, but found \(other.typeName)."))
        }
        let c = try JSONTreeDecoder(object, codingPath: decoder.codingPath).container(keyedBy: CodingKeys.self)
        kind = Kind(rawValue: try c.decode(String.self, forKey: .kind))
        sub = try c.decode(String.self, forKey: .sub)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        isPrivateEmail = try c.decodeLenientBoolIfPresent(forKey: .isPrivateEmail)
        eventTime = try c.decodeIfPresent(Int64.self, forKey: .eventTime)
    }

    /// The JSON object in `text`, by the core's strict parser and limits.
    static func parse(_ text: String, codingPath: [any CodingKey]) throws -> JSONValue {
        guard text.utf8.count <= JWTVerifier.defaultMaxTokenSize else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "The events string is longer than \(JWTVerifier.defaultMaxTokenSize) bytes."))
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text.utf8, maxDepth: JSONParser.defaultMaxDepth)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "The events string is not a valid JSON document: \(error.message).",
                    underlyingError: error))
        }
        guard case .object = value else {
            throw DecodingError.typeMismatch(
                AppleAccountEvent.self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Expected the events string to hold a JSON object but it holds \(value.typeName)."
                ))
        }
        return value
    }
}
