import XCTest

@_spi(Internals) @testable import JWTKernel

/// Sign in with Apple server-to-server notifications. The corpus has no real one (Apple sends them only to a
/// registered endpoint), so these are signed here with an OpenSSL-generated RSA key
/// (Fixtures/apple-notifications) in the shape Apple documents:
///   https://developer.apple.com/documentation/sign_in_with_apple/processing_changes_for_sign_in_with_apple_accounts
///   (the JWS claims `iss`, `aud`, `iat`, `jti`, `events`; event types `email-disabled`, `email-enabled`,
///   `consent-revoked`, `account-delete`; event members `type`, `sub`, `email`, `is_private_email`, `event_time`)
/// and as delivered, per the notifications developers have posted, e.g.
///   https://developer.apple.com/forums/thread/655485
///   (`events` is a string holding the JSON object; `exp` is present; `event_time` is in milliseconds;
///   `is_private_email` is the string "true").
final class AppleServerNotificationTests: XCTestCase {
    static let bundleID = "com.example.apple-samplecode.juice"
    static let iat: Int64 = 1_611_765_860
    static let userID = "001667.7f1e9b1f0d41426d8d8616e7d06be6f1.0433"

    let minter: RS256Minter = try! RS256Minter(fixture: "apple-notifications", kid: "W6WcOKB")

    func verifier(maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize) throws -> JWTVerifier {
        JWTVerifier(
            keys: try minter.keySet, policy: .appleServerNotifications(audiences: [Self.bundleID]),
            clock: FixedClock(Self.iat + 1), maxTokenSize: maxTokenSize)
    }

    /// The claims of a notification whose `events` member is `events` (JSON text, inserted as is).
    func claims(events: String, jti: String = "eB7rxt6UnYPQj2CQ9yK3xg") -> String {
        #"{"iss":"https://appleid.apple.com","aud":"\#(Self.bundleID)","exp":\#(Self.iat + 86_400),"#
            + #""iat":\#(Self.iat),"jti":"\#(jti)","events":\#(events)}"#
    }

    /// `event` (a JSON object's text) as a JSON string literal, as Apple sends it.
    func quoted(_ event: String) -> String {
        var out = ""
        JSONValue.writeString(event, to: &out)
        return out
    }

    func notification(_ event: String) throws -> AppleServerNotification {
        try verifier().verify(minter.token(claims: claims(events: quoted(event))), as: AppleServerNotification.self)
    }

    func testTheFourDocumentedEventTypes() throws {
        let disabled = try notification(
            #"{"type":"email-disabled","sub":"\#(Self.userID)","email":"ttckg8zg7s@privaterelay.appleid.com","#
                + #""is_private_email":"true","event_time":1611765847700}"#)
        XCTAssertEqual(disabled.iss, "https://appleid.apple.com")
        XCTAssertEqual(disabled.aud.values, [Self.bundleID])
        XCTAssertEqual(disabled.iat, NumericDate(secondsSince1970: Double(Self.iat)))
        XCTAssertEqual(disabled.exp, NumericDate(secondsSince1970: Double(Self.iat + 86_400)))
        XCTAssertEqual(disabled.jti, "eB7rxt6UnYPQj2CQ9yK3xg")
        XCTAssertEqual(disabled.event.kind, .emailDisabled)
        XCTAssertEqual(disabled.event.sub, Self.userID)
        XCTAssertEqual(disabled.event.email, "ttckg8zg7s@privaterelay.appleid.com")
        XCTAssertEqual(disabled.event.isPrivateEmail, true)
        XCTAssertEqual(disabled.event.eventTime, 1_611_765_847_700)
        XCTAssertEqual(disabled.event.eventDate, NumericDate(secondsSince1970: 1_611_765_847.7))

        let enabled = try notification(
            #"{"type":"email-enabled","sub":"\#(Self.userID)","email":"ttckg8zg7s@privaterelay.appleid.com","#
                + #""is_private_email":true,"event_time":1611765850000}"#)
        XCTAssertEqual(enabled.event.kind, .emailEnabled)
        XCTAssertEqual(enabled.event.isPrivateEmail, true)  // a JSON boolean too

        let revoked = try notification(
            #"{"type":"consent-revoked","sub":"\#(Self.userID)","event_time":1611765860000}"#)
        XCTAssertEqual(revoked.event.kind, .consentRevoked)
        XCTAssertEqual(revoked.event.kind.rawValue, "consent-revoked")
        XCTAssertNil(revoked.event.email)
        XCTAssertNil(revoked.event.isPrivateEmail)

        let deleted = try notification(#"{"type":"account-delete","sub":"\#(Self.userID)","event_time":1611765870000}"#)
        XCTAssertEqual(deleted.event.kind, .accountDelete)
        XCTAssertEqual(deleted.event.sub, Self.userID)
        XCTAssertEqual(deleted.event.eventDate, NumericDate(secondsSince1970: 1_611_765_870))
    }

    func testAnUnknownEventTypeIsKeptNotDropped() throws {
        let n = try notification(#"{"type":"email-forwarding-paused","sub":"\#(Self.userID)","event_time":1}"#)
        XCTAssertEqual(n.event.kind, .other("email-forwarding-paused"))
        XCTAssertEqual(n.event.kind.rawValue, "email-forwarding-paused")
        XCTAssertEqual(AppleAccountEvent.Kind(rawValue: "email-forwarding-paused"), n.event.kind)
        // Case matters: Apple's types are lower-case.
        XCTAssertEqual(AppleAccountEvent.Kind(rawValue: "Consent-Revoked"), .other("Consent-Revoked"))
        for kind in [AppleAccountEvent.Kind.emailDisabled, .emailEnabled, .consentRevoked, .accountDelete] {
            XCTAssertEqual(AppleAccountEvent.Kind(rawValue: kind.rawValue), kind)
        }
        // event_time in seconds, as in Apple's documentation example, reads as seconds.
        XCTAssertEqual(n.event.eventDate, NumericDate(secondsSince1970: 1))
    }

    /// Apple's documentation prints `events` as an object; that form decodes the same.
    func testEventsAsAnObject() throws {
        let token = minter.token(
            claims: claims(events: #"{"type":"consent-revoked","sub":"\#(Self.userID)","event_time":1611765860000}"#))
        let n = try verifier().verify(token, as: AppleServerNotification.self)
        XCTAssertEqual(n.event.kind, .consentRevoked)
        XCTAssertEqual(n.event.sub, Self.userID)
    }

    /// The identity-token preset requires `sub`, which a notification does not have at the top level; the
    /// notification preset does not, and still pins Apple's issuer and the audience.
    func testPresets() throws {
        let token = minter.token(claims: claims(events: quoted(#"{"type":"consent-revoked","sub":"u"}"#)))
        let identity = JWTVerifier(
            keys: try minter.keySet, policy: .apple(audiences: [Self.bundleID]), clock: FixedClock(Self.iat + 1))
        XCTAssertThrowsError(try identity.verify(token, as: AppleServerNotification.self)) {
            XCTAssertEqual(($0 as? JWTError)?.code, .missingClaim)
        }
        let other = JWTVerifier(
            keys: try minter.keySet, policy: .appleServerNotifications(audiences: ["com.example.other"]),
            clock: FixedClock(Self.iat + 1))
        KeyKit.expect(.badAudience) { _ = try other.verify(token, as: AppleServerNotification.self) }
        // A notification without events is refused before decoding.
        let noEvents = minter.token(
            claims: #"{"iss":"https://appleid.apple.com","aud":"\#(Self.bundleID)","exp":\#(Self.iat + 60),"#
                + #""iat":\#(Self.iat)}"#)
        KeyKit.expect(.missingClaim) { _ = try verifier().verify(noEvents, as: AppleServerNotification.self) }
        // A forged signature is a JWTError, never a decoded notification.
        KeyKit.expect(.badSignature) {
            _ = try verifier().verify(KeyKit.flippingSignatureBit(token), as: AppleServerNotification.self)
        }
    }

    // MARK: Hostile events

    /// Decodes `events` (a JSON member value's text) through a signed token and returns the DecodingError.
    func decodingError(
        _ events: String, maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize, file: StaticString = #filePath,
        line: UInt = #line
    ) -> DecodingError? {
        do {
            let token = minter.token(claims: claims(events: events))
            let n = try verifier(maxTokenSize: maxTokenSize).verify(token, as: AppleServerNotification.self)
            XCTFail("decoded \(n)", file: file, line: line)
        } catch let error as DecodingError {
            return error
        } catch {
            XCTFail("expected a DecodingError, got \(error)", file: file, line: line)
        }
        return nil
    }

    func context(_ error: DecodingError?) -> DecodingError.Context? {
        switch error {
        case .dataCorrupted(let c), .typeMismatch(_, let c), .keyNotFound(_, let c), .valueNotFound(_, let c): c
        default: nil
        }
    }

    func testEventsThatAreNotJSON() throws {
        for text in [
            "not json", "", " ", "{", #"{"type":"consent-revoked","sub":"u""#, "{'type':'x'}",
            #"{"type":"consent-revoked","sub":"u"} trailing"#, #"{"type":"consent-revoked","sub":"u",}"#,
            "\u{FEFF}{}", #"{"type":"a","type":"b","sub":"u"}"#, "NaN", #"{"sub":"u","type":"x","n":01}"#,
        ] {
            let error = decodingError(quoted(text))
            guard case .dataCorrupted(let c) = error else { XCTFail("\(text): \(String(describing: error))"); continue }
            XCTAssertEqual(c.codingPath.map(\.stringValue), ["events"], text)
            XCTAssertTrue(c.debugDescription.hasPrefix("The events string is not a valid JSON document"), text)
            XCTAssertTrue(c.underlyingError is JWTError, text)
        }
    }

    func testEventsNestedTooDeeply() throws {
        // Within the depth limit, the nesting is fine (and then the members are what count).
        let shallow = String(repeating: "[", count: 31) + String(repeating: "]", count: 31)
        XCTAssertEqual(try notification(#"{"type":"x","sub":"u","extra":\#(shallow)}"#).event.kind, .other("x"))
        // Past it: refused, as claims themselves are. Thousands of levels do not crash.
        for depth in [33, 64, 2000] {
            let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            for text in [arrays, objects, #"{"type":"x","sub":"u","extra":\#(arrays)}"#] {
                let error = decodingError(quoted(text), maxTokenSize: 1 << 16)
                guard case .dataCorrupted(let c) = error else {
                    XCTFail("\(depth): \(String(describing: error))"); continue
                }
                XCTAssertEqual(c.codingPath.map(\.stringValue), ["events"])
                XCTAssertEqual((c.underlyingError as? JWTError)?.message, "JSON nested too deeply")
            }
        }
    }

    func testEventsOfTheWrongType() throws {
        let cases: [(events: String, path: [String], found: String)] = [
            ("42", ["events"], "a number"),
            ("true", ["events"], "a boolean"),
            ("null", ["events"], "null"),
            (#"["{}"]"#, ["events"], "an array"),
            (quoted("[]"), ["events"], "an array"),
            (quoted(#""consent-revoked""#), ["events"], "a string"),
            (quoted("7"), ["events"], "a number"),
            (quoted(#"{"type":7,"sub":"u"}"#), ["events", "type"], "a number"),
            (quoted(#"{"type":"consent-revoked","sub":["u"]}"#), ["events", "sub"], "an array"),
            (quoted(#"{"type":"email-enabled","sub":"u","email":false}"#), ["events", "email"], "a boolean"),
            (
                quoted(#"{"type":"email-enabled","sub":"u","is_private_email":1}"#), ["events", "is_private_email"],
                "a number"
            ),
            (quoted(#"{"type":"x","sub":"u","event_time":"1611765847700"}"#), ["events", "event_time"], "a string"),
        ]
        for (events, path, found) in cases {
            let error = decodingError(events)
            guard case .typeMismatch(_, let c) = error else {
                XCTFail("\(events): \(String(describing: error))"); continue
            }
            XCTAssertEqual(c.codingPath.map(\.stringValue), path, events)
            XCTAssertTrue(c.debugDescription.contains(found), "\(events): \(c.debugDescription)")
        }
        // A fraction or an out-of-range number where an integer goes.
        for text in [#"{"type":"x","sub":"u","event_time":1.5}"#, #"{"type":"x","sub":"u","event_time":1e3}"#] {
            guard case .typeMismatch(_, let c) = decodingError(quoted(text)) else { XCTFail(text); continue }
            XCTAssertEqual(c.codingPath.map(\.stringValue), ["events", "event_time"])
        }
        let huge = #"{"type":"x","sub":"u","event_time":99999999999999999999}"#
        guard case .dataCorrupted(let c) = decodingError(quoted(huge)) else { return XCTFail(huge) }
        XCTAssertEqual(c.codingPath.map(\.stringValue), ["events", "event_time"])
        // A string other than "true"/"false" for the lenient boolean.
        let maybe = #"{"type":"x","sub":"u","is_private_email":"maybe"}"#
        guard case .dataCorrupted(let m) = decodingError(quoted(maybe)) else { return XCTFail(maybe) }
        XCTAssertEqual(m.codingPath.map(\.stringValue), ["events", "is_private_email"])
    }

    func testEventsMissingMembers() throws {
        for (text, missing) in [(#"{"sub":"u"}"#, "type"), (#"{"type":"consent-revoked"}"#, "sub"), ("{}", "type")] {
            guard case .keyNotFound(let key, let c) = decodingError(quoted(text)) else { XCTFail(text); continue }
            XCTAssertEqual(key.stringValue, missing)
            XCTAssertEqual(c.codingPath.map(\.stringValue), ["events"])
        }
        // Optional members may be absent or null.
        let n = try notification(#"{"type":"consent-revoked","sub":"u","email":null,"event_time":null}"#)
        XCTAssertNil(n.event.email)
        XCTAssertNil(n.event.eventTime)
        XCTAssertNil(n.event.eventDate)
    }

    /// The events text is held to the default token size even when the verifier allows larger tokens.
    func testEventsLongerThanTheTokenLimit() throws {
        let padding = String(repeating: "x", count: JWTVerifier.defaultMaxTokenSize)
        let text = #"{"type":"consent-revoked","sub":"u","pad":"\#(padding)"}"#
        guard case .dataCorrupted(let c) = decodingError(quoted(text), maxTokenSize: 1 << 16) else {
            return XCTFail("a long events string decoded")
        }
        XCTAssertEqual(c.codingPath.map(\.stringValue), ["events"])
        XCTAssertTrue(c.debugDescription.contains("longer than"), c.debugDescription)
        XCTAssertFalse(c.debugDescription.contains("xxxx"))  // nothing of the input echoed
    }

    /// Every truncation and every one-byte corruption of a valid events string either decodes or throws a
    /// DecodingError: nothing crashes, nothing else escapes. Checked on the tree, without signing each one.
    func testMutatedEventsNeverCrash() throws {
        let valid = Array(
            (#"{"type":"email-disabled","sub":"\#(Self.userID)","email":"a@privaterelay.appleid.com","#
                + #""is_private_email":"true","event_time":1611765847700}"#).utf8)
        var decoded = 0, refused = 0
        func attempt(_ bytes: [UInt8]) {
            let claims = JSONValue.object([
                .init(name: "iss", value: .string("https://appleid.apple.com")),
                .init(name: "aud", value: .string(Self.bundleID)), .init(name: "iat", value: .number("1")),
                .init(name: "events", value: .string(String(decoding: bytes, as: UTF8.self))),
            ])
            do {
                _ = try JSONValueDecoder().decode(AppleServerNotification.self, from: claims)
                decoded += 1
            } catch is DecodingError {
                refused += 1
            } catch {
                XCTFail("\(error)")
            }
        }
        for end in 0..<valid.count { attempt(Array(valid[..<end])) }
        for i in valid.indices {
            for replacement: UInt8 in [0x00, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x2C, 0x3A, 0x31, 0xFF] {
                var bytes = valid
                bytes[i] = replacement
                attempt(bytes)
            }
        }
        attempt(valid)
        XCTAssertGreaterThan(decoded, 1)
        XCTAssertGreaterThan(refused, valid.count)
    }
}
