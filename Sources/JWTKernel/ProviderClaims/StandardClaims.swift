// Typed claims for the providers the presets know (ClaimsPolicy+Providers.swift): the registered claims they all send,
// shared by every provider type instead of being declared again by each.

/// The registered claims (RFC 7519 section 4.1) of an identity provider's ID token, decoded once for every provider
/// type (`AppleClaims`, `GoogleClaims`, ...). Reach them as `claims.standard.sub` or, through `ProviderClaims`, as
/// `claims.sub`.
///
/// `iss`, `sub`, `aud`, `exp` and `iat` are required: every ID token these providers issue carries them, so a token
/// without one is not one of theirs (`DecodingError.keyNotFound`). `nbf` and `jti` only some providers send.
/// The verifier has already checked the values its policy names (issuer, audience, times); these are the same values,
/// typed.
public struct StandardClaims: Sendable, Hashable, Decodable {
    public var iss: String
    public var sub: String
    public var aud: Audience
    public var exp: NumericDate
    public var iat: NumericDate
    public var nbf: NumericDate?
    public var jti: String?
}

/// The `aud` claim: RFC 7519 allows one string or an array of strings, and providers send either (Apple, Google a
/// string; others an array), so both decode to `values`. Anything else (a number, an array holding a non-string)
/// is a `DecodingError.typeMismatch`.
public struct Audience: Sendable, Hashable, Decodable, CustomStringConvertible {
    public var values: [String]

    public init(_ values: [String]) { self.values = values }

    public func contains(_ audience: String) -> Bool { values.contains(audience) }

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        switch value {
        case .string(let single): values = [single]
        case .array: values = try decoder.singleValueContainer().decode([String].self)
        default:
            throw DecodingError.typeMismatch(
                Audience.self,
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "Expected a string or an array of strings but found \(value.typeName)."))
        }
    }

    public var description: String { values.count == 1 ? values[0] : "\(values)" }
}

/// A provider's claim type: its own claims, plus the shared `standard` ones, which read as if they were its own
/// (`claims.sub`, `claims.exp`) by key-path member lookup, so no provider type declares them again.
@dynamicMemberLookup
public protocol ProviderClaims: Decodable, Sendable {
    var standard: StandardClaims { get }
}

extension ProviderClaims {
    public subscript<T>(dynamicMember keyPath: KeyPath<StandardClaims, T>) -> T { standard[keyPath: keyPath] }
}
