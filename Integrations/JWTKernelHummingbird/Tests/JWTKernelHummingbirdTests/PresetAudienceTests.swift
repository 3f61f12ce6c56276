import Hummingbird
import HummingbirdAuth
import JWTKernel
import JWTKernelHummingbird
import JWTKernelRemote
import XCTest

/// An authenticator over a provider preset without its audience would admit that provider's ID tokens of
/// every application: it is refused when it is made, before any key is fetched, naming what is missing.
final class PresetAudienceTests: XCTestCase {
    func testAnAuthenticatorForAPresetWithoutAudienceIsRefused() {
        let refresher = KeyRefresher(store: KeyStore())
        for (preset, words) in [
            (ProviderPreset.google(audiences: []), "OAuth client ID"), (.apple(audiences: [""]), "empty audience"),
        ] {
            XCTAssertThrowsError(
                try JWTKernelAuthenticator<BasicAuthRequestContext<VerifiedJWT>>(
                    presets: [preset], refresher: refresher)
            ) { error in
                XCTAssertEqual((error as? KeySourceError)?.reason, .badConfiguration)
                XCTAssertTrue("\(error)".contains(words), "\(error)")
            }
        }
        XCTAssertTrue(refresher.allStats.isEmpty, "no key URL registered")
    }
}
