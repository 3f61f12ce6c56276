// Microsoft identity platform (Entra ID) ID tokens and access tokens, verified with
// `ClaimsPolicy.microsoft(tenantID:audiences:)`.

/// The claims of a Microsoft identity platform token, v2.0 or v1. The registered ones are in `standard`;
/// `claims.sub` is pairwise (one value per application), so key accounts on `tid` + `oid`, which identify the user
/// across applications of the tenant.
///
/// `preferred_username` and `email` are mutable and not verified by Microsoft for every account type: display them,
/// never authorise on them.
public struct MicrosoftClaims: ProviderClaims, Hashable {
    public var standard: StandardClaims
    /// The tenant (directory) ID the user signed in to.
    public var tid: String?
    /// The user's object ID in the tenant.
    public var oid: String?
    public var preferredUsername: String?
    public var name: String?
    public var email: String?
    /// The token format version, `"2.0"` or `"1.0"`.
    public var ver: String?
    public var nonce: String?
    /// The client ID of the application that requested the token (v2.0; v1 access tokens send `appid`).
    public var azp: String?
    /// The identity provider that authenticated the user, when it is not the tenant itself (guest accounts).
    public var idp: String?
    /// Delegated scopes granted, space-separated (access tokens).
    public var scp: String?
    /// Application roles assigned to the user or application.
    public var roles: [String]?

    enum CodingKeys: String, CodingKey {
        case tid, oid, name, email, ver, nonce, azp, idp, scp, roles
        case preferredUsername = "preferred_username"
    }

    public init(from decoder: any Decoder) throws {
        standard = try StandardClaims(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tid = try c.decodeIfPresent(String.self, forKey: .tid)
        oid = try c.decodeIfPresent(String.self, forKey: .oid)
        preferredUsername = try c.decodeIfPresent(String.self, forKey: .preferredUsername)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        ver = try c.decodeIfPresent(String.self, forKey: .ver)
        nonce = try c.decodeIfPresent(String.self, forKey: .nonce)
        azp = try c.decodeIfPresent(String.self, forKey: .azp)
        idp = try c.decodeIfPresent(String.self, forKey: .idp)
        scp = try c.decodeIfPresent(String.self, forKey: .scp)
        roles = try c.decodeIfPresent([String].self, forKey: .roles)
    }
}
