import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// The provider claim types (Sources/JWTKernel/ProviderClaims) on the real provider-signed tokens of
/// Fixtures/real-tokens, through `verify(_:as:)` with the real signatures and the providers' presets.
/// Each provider has a test of exact values read from its token payloads, and a test that every one of its
/// tokens decodes to what Foundation's JSON parser reads in the same payload (an independent parser).
final class ProviderClaimsRealTokenTests: XCTestCase {
    typealias RealToken = RealTokenTests.RealToken

    static let tokens: [RealToken] = (try? RealTokenTests.load()) ?? []

    func token(_ name: String) throws -> RealToken { try XCTUnwrap(Self.tokens.first { $0.name == name }, name) }

    func tokens(of provider: String, expected count: Int) throws -> [RealToken] {
        let found = Self.tokens.filter { $0.provider == provider }
        XCTAssertEqual(found.count, count, "a test over the real \(provider) tokens must not pass on fewer")
        return found
    }

    /// The provider's preset policy for `t`, at `iat + 1`.
    func verifier(_ t: RealToken) throws -> JWTVerifier {
        let policy: ClaimsPolicy
        switch t.provider {
        case "apple": policy = .apple(audiences: [t.aud])
        case "google": policy = .google(audiences: [t.aud])
        case "firebase": policy = .firebase(projectID: t.aud)
        case "facebook": policy = .facebook(audiences: [t.aud])
        case "microsoft":
            // https://login.microsoftonline.com/TENANT/v2.0 or https://sts.windows.net/TENANT/
            let parts = t.iss.split(separator: "/")
            policy = .microsoft(
                tenantID: String(parts[2] == "sts.windows.net" ? parts[3] : parts[2]), audiences: [t.aud])
        default: throw XCTSkip("no preset for \(t.provider)")
        }
        return JWTVerifier(keys: try JWKSet(json: t.jwks), policy: policy, clock: FixedClock(t.iat + 1))
    }

    func decode<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
        let t = try token(name)
        return try verifier(t).verify(t.token, as: type)
    }

    /// The token's payload as Foundation reads it.
    func payload(_ t: RealToken) throws -> [String: Any] {
        let parts = t.token.split(separator: ".")
        let bytes = try XCTUnwrap(KeyKit.base64URLDecode(parts[1]), t.name)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], t.name)
    }

    /// A payload boolean as Apple means it: a JSON boolean, or the string "true"/"false".
    func lenient(_ value: Any?) -> Bool? {
        switch value {
        case let s as String: return s == "true" ? true : s == "false" ? false : nil
        case let n as NSNumber: return n.boolValue
        default: return nil
        }
    }

    func date(_ value: Any?) -> NumericDate? {
        (value as? NSNumber).map { NumericDate(secondsSince1970: $0.doubleValue) }
    }

    func assertStandard(_ s: StandardClaims, _ p: [String: Any], _ t: RealToken) {
        XCTAssertEqual(s.iss, t.iss, t.name)
        XCTAssertEqual(s.iss, p["iss"] as? String, t.name)
        XCTAssertEqual(s.sub, p["sub"] as? String, t.name)
        XCTAssertEqual(s.aud.values, [t.aud], t.name)
        XCTAssertEqual(s.exp, NumericDate(secondsSince1970: Double(t.exp)), t.name)
        XCTAssertEqual(s.iat, NumericDate(secondsSince1970: Double(t.iat)), t.name)
        XCTAssertEqual(s.nbf, date(p["nbf"]), t.name)
        XCTAssertEqual(s.jti, p["jti"] as? String, t.name)
    }

    // MARK: Apple

    func testAppleExactValues() throws {
        // apple-1: email_verified and is_private_email as the strings "true".
        let a1 = try decode("apple-1", as: AppleClaims.self)
        XCTAssertEqual(a1.iss, "https://appleid.apple.com")
        XCTAssertEqual(a1.sub, "001091.22c0ca594d4243c58edf3553540380b5.2045")
        XCTAssertEqual(a1.sub, a1.standard.sub)  // member lookup reads the shared claims
        XCTAssertEqual(a1.aud, Audience(["app.namecare.ios"]))
        XCTAssertEqual(a1.exp, NumericDate(secondsSince1970: 1_689_629_971))
        XCTAssertEqual(a1.iat, NumericDate(secondsSince1970: 1_689_543_571))
        XCTAssertNil(a1.nbf)
        XCTAssertEqual(a1.email, "ecr9pbhimu@privaterelay.appleid.com")
        XCTAssertEqual(a1.emailVerified, true)
        XCTAssertEqual(a1.isPrivateEmail, true)
        XCTAssertEqual(a1.cHash, "O1yEpcWPlLCuu86qklkoFg")
        XCTAssertNil(a1.atHash)
        XCTAssertEqual(a1.authTime, NumericDate(secondsSince1970: 1_689_543_571))
        XCTAssertEqual(a1.nonceSupported, true)
        XCTAssertNil(a1.nonce)
        XCTAssertNil(a1.realUserStatus)
        XCTAssertNil(a1.transferSub)

        // apple-12: email_verified as a JSON boolean, no is_private_email (a real address).
        let a12 = try decode("apple-12", as: AppleClaims.self)
        XCTAssertEqual(a12.email, "spearoad15@gmail.com")
        XCTAssertEqual(a12.emailVerified, true)
        XCTAssertNil(a12.isPrivateEmail)
        XCTAssertEqual(a12.aud.values, ["com.pull-up.services"])

        // apple-23: both as JSON booleans.
        let a23 = try decode("apple-23", as: AppleClaims.self)
        XCTAssertEqual(a23.email, "kx4cmsbzcv@privaterelay.appleid.com")
        XCTAssertEqual(a23.emailVerified, true)
        XCTAssertEqual(a23.isPrivateEmail, true)

        // apple-2: real_user_status 2 (likely real).
        let a2 = try decode("apple-2", as: AppleClaims.self)
        XCTAssertEqual(a2.realUserStatus, .likelyReal)
        XCTAssertEqual(a2.realUserStatus?.rawValue, 2)
        XCTAssertEqual(a2.sub, "001182.c7836d7cb643436faab92d8dcd841f0d.1751")

        // apple-13: a nonce, and no email at all.
        let a13 = try decode("apple-13", as: AppleClaims.self)
        XCTAssertEqual(a13.nonce, "hTPpgF7XAKbW37rEUS6pEVZqmoI")
        XCTAssertNil(a13.email)
        XCTAssertNil(a13.emailVerified)

        // apple-14: at_hash, and an auth_time before iat.
        let a14 = try decode("apple-14", as: AppleClaims.self)
        XCTAssertEqual(a14.atHash, "uQFY0U2gcNHAG9Zr9ngHFw")
        XCTAssertNil(a14.cHash)
        XCTAssertEqual(a14.authTime, NumericDate(secondsSince1970: 1_653_639_101))
        XCTAssertEqual(a14.iat, NumericDate(secondsSince1970: 1_653_639_126))

        // apple-16 (Apple's 2019 sample code): only the standard claims, 10-minute lifetime.
        let a16 = try decode("apple-16", as: AppleClaims.self)
        XCTAssertEqual(a16.sub, "000806.e7db38c0b83942dbbbfd62681e3ad922.0318")
        XCTAssertEqual(a16.exp.secondsSince1970 - a16.iat.secondsSince1970, 600)
        XCTAssertNil(a16.nonceSupported)
        XCTAssertNil(a16.authTime)
        XCTAssertNil(a16.email)
    }

    func testEveryAppleTokenMatchesItsPayload() throws {
        var stringBooleans = 0, jsonBooleans = 0
        for t in try tokens(of: "apple", expected: 24) {
            let claims = try verifier(t).verify(t.token, as: AppleClaims.self)
            let p = try payload(t)
            assertStandard(claims.standard, p, t)
            XCTAssertEqual(claims.email, p["email"] as? String, t.name)
            XCTAssertEqual(claims.emailVerified, lenient(p["email_verified"]), t.name)
            XCTAssertEqual(claims.isPrivateEmail, lenient(p["is_private_email"]), t.name)
            XCTAssertEqual(claims.nonceSupported, lenient(p["nonce_supported"]), t.name)
            XCTAssertEqual(claims.realUserStatus?.rawValue, (p["real_user_status"] as? NSNumber)?.intValue, t.name)
            XCTAssertEqual(claims.nonce, p["nonce"] as? String, t.name)
            XCTAssertEqual(claims.transferSub, p["transfer_sub"] as? String, t.name)
            XCTAssertEqual(claims.authTime, date(p["auth_time"]), t.name)
            XCTAssertEqual(claims.cHash, p["c_hash"] as? String, t.name)
            XCTAssertEqual(claims.atHash, p["at_hash"] as? String, t.name)
            let text = String(
                decoding: try XCTUnwrap(KeyKit.base64URLDecode(t.token.split(separator: ".")[1])), as: UTF8.self)
            if text.contains(#""email_verified":"true""#) { stringBooleans += 1 }
            if text.contains(#""email_verified":true"#) { jsonBooleans += 1 }
        }
        // The corpus has both spellings of email_verified: 10 tokens send "true", 9 send true.
        XCTAssertEqual(stringBooleans, 10)
        XCTAssertEqual(jsonBooleans, 9)
    }

    // MARK: Google

    func testGoogleExactValues() throws {
        // google-10: azp differs from aud (an Android client's token for a server), full profile.
        let g10 = try decode("google-10", as: GoogleClaims.self)
        XCTAssertEqual(g10.iss, "https://accounts.google.com")
        XCTAssertEqual(g10.sub, "117988538058471830924")
        XCTAssertEqual(g10.aud.values, ["381871578603-kq43dlf32e1boghdcja60rh92umulg2m.apps.googleusercontent.com"])
        XCTAssertEqual(g10.azp, "381871578603-rmsoihrgeh35qvk2jasghdsrc6uk65fd.apps.googleusercontent.com")
        XCTAssertEqual(g10.email, "testertestingtest777@gmail.com")
        XCTAssertEqual(g10.emailVerified, true)
        XCTAssertEqual(g10.name, "Test Test")
        XCTAssertEqual(g10.givenName, "Test")
        XCTAssertEqual(g10.familyName, "Test")
        XCTAssertEqual(g10.locale, "en")
        XCTAssertEqual(
            g10.picture,
            "https://lh3.googleusercontent.com/-WKKIixkAtbw/AAAAAAAAAAI/AAAAAAAAAAA/AMZuucmUkZa1W62dxY3TwoHPFPbIMc0f8w/s96-c/photo.jpg"
        )
        XCTAssertNil(g10.hd)
        XCTAssertNil(g10.nonce)
        XCTAssertEqual(g10.exp, NumericDate(secondsSince1970: 1_613_260_830))

        // google-4: no email or profile; nbf, nonce and jti.
        let g4 = try decode("google-4", as: GoogleClaims.self)
        XCTAssertEqual(g4.nonce, "KKPFuIGpdWsQCokkMMxMJCwHsTE")
        XCTAssertEqual(g4.nbf, NumericDate(secondsSince1970: 1_698_271_131))
        XCTAssertEqual(g4.jti, "7bfa75eafa4cbcc1eec0f930bb730c7e8d92c178")
        XCTAssertNil(g4.email)
        XCTAssertNil(g4.emailVerified)
        XCTAssertNil(g4.name)

        // google-9: the issuer without a scheme, locale en-GB.
        let g9 = try decode("google-9", as: GoogleClaims.self)
        XCTAssertEqual(g9.iss, "accounts.google.com")
        XCTAssertEqual(g9.locale, "en-GB")
        XCTAssertEqual(g9.name, "Talha Jubaer")
        XCTAssertEqual(g9.atHash, "jK0OElagPV3nWws_ZFKyYA")
    }

    func testEveryGoogleTokenMatchesItsPayload() throws {
        for t in try tokens(of: "google", expected: 10) {
            let claims = try verifier(t).verify(t.token, as: GoogleClaims.self)
            let p = try payload(t)
            assertStandard(claims.standard, p, t)
            XCTAssertEqual(claims.email, p["email"] as? String, t.name)
            XCTAssertEqual(claims.emailVerified, lenient(p["email_verified"]), t.name)
            XCTAssertEqual(claims.hd, p["hd"] as? String, t.name)
            XCTAssertEqual(claims.name, p["name"] as? String, t.name)
            XCTAssertEqual(claims.picture, p["picture"] as? String, t.name)
            XCTAssertEqual(claims.givenName, p["given_name"] as? String, t.name)
            XCTAssertEqual(claims.familyName, p["family_name"] as? String, t.name)
            XCTAssertEqual(claims.locale, p["locale"] as? String, t.name)
            XCTAssertEqual(claims.azp, p["azp"] as? String, t.name)
            XCTAssertEqual(claims.nonce, p["nonce"] as? String, t.name)
            XCTAssertEqual(claims.atHash, p["at_hash"] as? String, t.name)
        }
    }

    // MARK: Firebase

    func testFirebaseExactValues() throws {
        let f1 = try decode("firebase-1", as: FirebaseClaims.self)
        XCTAssertEqual(f1.iss, "https://securetoken.google.com/entopias")
        XCTAssertEqual(f1.aud.values, ["entopias"])
        XCTAssertEqual(f1.sub, "VVLnneZUiaczCUvyFluc01B70r12")
        XCTAssertEqual(f1.userID, "VVLnneZUiaczCUvyFluc01B70r12")
        XCTAssertEqual(f1.name, "Andres Parra")
        XCTAssertEqual(f1.email, "byandrev@gmail.com")
        XCTAssertEqual(f1.emailVerified, true)
        XCTAssertEqual(f1.authTime, NumericDate(secondsSince1970: 1_744_293_797))
        XCTAssertEqual(f1.firebase.signInProvider, "password")
        XCTAssertEqual(
            f1.firebase.identities, ["google.com": ["103177333799023144066"], "email": ["byandrev@gmail.com"]])
        XCTAssertNil(f1.firebase.tenant)
        XCTAssertNil(f1.phoneNumber)

        // firebase-2: no name or picture; three linked identities, one of them Apple's.
        let f2 = try decode("firebase-2", as: FirebaseClaims.self)
        XCTAssertNil(f2.name)
        XCTAssertNil(f2.picture)
        XCTAssertEqual(f2.firebase.signInProvider, "google.com")
        XCTAssertEqual(f2.firebase.identities["apple.com"], ["000745.18c1b4decb96438c961eda9e04e48a2b.0453"])
        XCTAssertEqual(f2.firebase.identities.count, 3)

        // firebase-3: a name outside ASCII, sent as UTF-8.
        let f3 = try decode("firebase-3", as: FirebaseClaims.self)
        XCTAssertEqual(f3.name, "nguyễn văn công")
        XCTAssertEqual(f3.firebase.identities["google.com"], ["116958677545378563539"])
    }

    func testEveryFirebaseTokenMatchesItsPayload() throws {
        for t in try tokens(of: "firebase", expected: 3) {
            let claims = try verifier(t).verify(t.token, as: FirebaseClaims.self)
            let p = try payload(t)
            assertStandard(claims.standard, p, t)
            XCTAssertEqual(claims.userID, p["user_id"] as? String, t.name)
            XCTAssertEqual(claims.email, p["email"] as? String, t.name)
            XCTAssertEqual(claims.emailVerified, lenient(p["email_verified"]), t.name)
            XCTAssertEqual(claims.name, p["name"] as? String, t.name)
            XCTAssertEqual(claims.picture, p["picture"] as? String, t.name)
            XCTAssertEqual(claims.authTime, date(p["auth_time"]), t.name)
            let firebase = try XCTUnwrap(p["firebase"] as? [String: Any], t.name)
            XCTAssertEqual(claims.firebase.signInProvider, firebase["sign_in_provider"] as? String, t.name)
            XCTAssertEqual(claims.firebase.identities, firebase["identities"] as? [String: [String]], t.name)
            XCTAssertEqual(claims.firebase.tenant, firebase["tenant"] as? String, t.name)
        }
    }

    // MARK: Facebook

    func testFacebookExactValues() throws {
        // facebook-1: Cyrillic names sent as \u escapes, escaped slashes, no email.
        let fb1 = try decode("facebook-1", as: FacebookClaims.self)
        XCTAssertEqual(fb1.iss, "https://www.facebook.com")
        XCTAssertEqual(fb1.sub, "3944046265836837")
        XCTAssertEqual(fb1.aud.values, ["465724596122029"])
        XCTAssertEqual(fb1.jti, "N7tA.bdaa1aab417d2f716e4aac8ac62191a48ed5ff93827c071ee15e896e635c474c")
        XCTAssertEqual(fb1.nonce, "pxosH_oHZ0y369C8sy4wyI0Ny_g")
        XCTAssertEqual(fb1.givenName, "Алина")
        XCTAssertEqual(fb1.familyName, "Алиновна")
        XCTAssertEqual(fb1.name, "Алина Алиновна")
        XCTAssertEqual(
            fb1.picture,
            "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=3944046265836837&height=100&width=100&ext=1735401285&hash=AbYGDB7MqqcVjotfMGlo0Bt8"
        )
        XCTAssertNil(fb1.email)
        XCTAssertNil(fb1.atHash)
        XCTAssertNil(fb1.userFriends)
        XCTAssertNil(fb1.userAgeRange)

        // facebook-2: an empty nonce, at_hash, and the email's "@" escaped as \u0040.
        let fb2 = try decode("facebook-2", as: FacebookClaims.self)
        XCTAssertEqual(fb2.nonce, "")
        XCTAssertEqual(fb2.atHash, "nKI0y54mQ5R8rK1vR5A-XA")
        XCTAssertEqual(fb2.email, "fs.pessina@gmail.com")
        XCTAssertEqual(fb2.name, "Felipe Pessina")

        let fb3 = try decode("facebook-3", as: FacebookClaims.self)
        XCTAssertEqual(fb3.familyName, "Nguyễn")
        XCTAssertEqual(fb3.name, "Nguyễn Rin")
        XCTAssertEqual(fb3.nonce, "my_nonce")
        XCTAssertEqual(fb3.exp.secondsSince1970 - fb3.iat.secondsSince1970, 3600)
    }

    func testEveryFacebookTokenMatchesItsPayload() throws {
        for t in try tokens(of: "facebook", expected: 3) {
            let claims = try verifier(t).verify(t.token, as: FacebookClaims.self)
            let p = try payload(t)
            assertStandard(claims.standard, p, t)
            for (value, key) in [
                (claims.nonce, "nonce"), (claims.atHash, "at_hash"), (claims.email, "email"), (claims.name, "name"),
                (claims.givenName, "given_name"), (claims.middleName, "middle_name"),
                (claims.familyName, "family_name"), (claims.picture, "picture"),
            ] {
                XCTAssertEqual(value, p[key] as? String, "\(t.name) \(key)")
            }
        }
    }

    // MARK: Microsoft

    func testMicrosoftExactValues() throws {
        // microsoft-1: a v2.0 ID token of a personal account (the consumers tenant), with a nonce.
        let m1 = try decode("microsoft-1", as: MicrosoftClaims.self)
        XCTAssertEqual(m1.ver, "2.0")
        XCTAssertEqual(m1.tid, "9188040d-6c67-4c5b-b112-36a304b66dad")
        XCTAssertEqual(m1.nonce, "hTPpgF7XAKbW37rEUS6pEVZqmoI")
        XCTAssertEqual(m1.sub, "AAAAAAAAAAAAAAAAAAAAAAN7Gox7FEet1_RHo6NERps")
        XCTAssertEqual(m1.nbf, NumericDate(secondsSince1970: 1_710_280_374))
        XCTAssertNil(m1.oid)
        XCTAssertNil(m1.preferredUsername)

        // microsoft-3: a v2.0 token with oid, preferred_username, name, azp and scp.
        let m3 = try decode("microsoft-3", as: MicrosoftClaims.self)
        XCTAssertEqual(m3.oid, "0d0aacba-d7c1-442c-ade1-67dee4ae145a")
        XCTAssertEqual(m3.tid, "18a59a81-eea8-4c30-948a-d8824cdc2580")
        XCTAssertEqual(m3.preferredUsername, "sadiq_shaik@network.lilly.com")
        XCTAssertEqual(m3.name, "Shaik Sadiq - Network")
        XCTAssertEqual(m3.azp, "0ce76fb8-8399-4aed-991d-a184f53ff32d")
        XCTAssertEqual(m3.scp, "LADLAPI")
        XCTAssertNil(m3.email)

        // microsoft-4: a guest account, its home tenant in idp.
        let m4 = try decode("microsoft-4", as: MicrosoftClaims.self)
        XCTAssertEqual(m4.idp, "https://sts.windows.net/9188040d-6c67-4c5b-b112-36a304b66dad/")

        // microsoft-5: a v1 access token (sts.windows.net issuer) with email and a delegated scope.
        let m5 = try decode("microsoft-5", as: MicrosoftClaims.self)
        XCTAssertEqual(m5.iss, "https://sts.windows.net/8af873c6-817c-4e1d-8154-5b636c48d912/")
        XCTAssertEqual(m5.ver, "1.0")
        XCTAssertEqual(m5.email, "khurramshahzad@hotmail.co.uk")
        XCTAssertEqual(m5.name, "Khurram Shahzad")
        XCTAssertEqual(m5.oid, "a908918f-d737-44bb-bc27-c65e34ad12b7")
        XCTAssertEqual(m5.scp, "demo.read")
        XCTAssertEqual(m5.idp, "live.com")
        XCTAssertEqual(m5.aud.values, ["https://khurramshahzadhotmailco.onmicrosoft.com/api"])
    }

    func testEveryMicrosoftTokenMatchesItsPayload() throws {
        for t in try tokens(of: "microsoft", expected: 5) {
            let claims = try verifier(t).verify(t.token, as: MicrosoftClaims.self)
            let p = try payload(t)
            assertStandard(claims.standard, p, t)
            for (value, key) in [
                (claims.tid, "tid"), (claims.oid, "oid"), (claims.preferredUsername, "preferred_username"),
                (claims.name, "name"), (claims.email, "email"), (claims.ver, "ver"), (claims.nonce, "nonce"),
                (claims.azp, "azp"), (claims.idp, "idp"), (claims.scp, "scp"),
            ] {
                XCTAssertEqual(value, p[key] as? String, "\(t.name) \(key)")
            }
            XCTAssertEqual(claims.roles, p["roles"] as? [String], t.name)
        }
    }

    // MARK: Across providers

    /// A token decoded as another provider's type fails on what that provider always sends, with a DecodingError
    /// naming the claim; the signature and policy passed, so it is not a JWTError.
    func testAnotherProvidersTypeIsAKeyNotFound() throws {
        let google = try token("google-1")
        XCTAssertThrowsError(try verifier(google).verify(google.token, as: FirebaseClaims.self)) { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key.stringValue, "firebase")
        }
        // Every real token decodes as StandardClaims (the generic type) through its preset.
        for t in Self.tokens where !t.provider.hasPrefix("extra") {
            let standard = try verifier(t).verify(t.token, as: StandardClaims.self)
            assertStandard(standard, try payload(t), t)
        }
    }

    /// The types do not depend on `JSONValueDecoder`: Foundation's `JSONDecoder` reads the same payload the same way.
    func testFoundationJSONDecoderAgrees() throws {
        for name in ["apple-1", "apple-12", "apple-2"] {
            let t = try token(name)
            let bytes = try XCTUnwrap(KeyKit.base64URLDecode(t.token.split(separator: ".")[1]))
            XCTAssertEqual(
                try JSONDecoder().decode(AppleClaims.self, from: Data(bytes)),
                try verifier(t).verify(t.token, as: AppleClaims.self), name)
        }
        let t = try token("firebase-2")
        let bytes = try XCTUnwrap(KeyKit.base64URLDecode(t.token.split(separator: ".")[1]))
        XCTAssertEqual(
            try JSONDecoder().decode(FirebaseClaims.self, from: Data(bytes)),
            try verifier(t).verify(t.token, as: FirebaseClaims.self))
    }
}
