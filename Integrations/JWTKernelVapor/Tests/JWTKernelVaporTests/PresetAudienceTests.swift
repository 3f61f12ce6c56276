import JWTKernel
import JWTKernelVapor
import XCTVapor

/// A provider configured without its audience would admit that provider's ID tokens of every application:
/// `configure` throws, naming what is missing, and the provider stays unconfigured (its routes answer 500).
final class PresetAudienceTests: XCTestCase {
    func testProvidersWithoutAudienceAreRefused() async throws {
        let app = try await Application.make(.testing)
        XCTAssertThrowsError(try app.jwtKernel.google.configure(audiences: [])) { error in
            XCTAssertEqual((error as? KeySourceError)?.reason, .badConfiguration)
            XCTAssertTrue("\(error)".contains("OAuth client ID"), "\(error)")
        }
        XCTAssertThrowsError(try app.jwtKernel.apple.configure(audiences: [""])) { error in
            XCTAssertTrue("\(error)".contains("empty audience"), "\(error)")
        }
        XCTAssertThrowsError(try app.jwtKernel.microsoft.configure(tenantID: "t", audiences: []))
        XCTAssertThrowsError(try app.jwtKernel.configure(presets: [.facebook(audiences: [])]))
        XCTAssertNil(app.jwtKernel.google.verifier)
        XCTAssertNil(app.jwtKernel.apple.verifier)
        XCTAssertNil(app.jwtKernel.verifier)
        try await app.asyncShutdown()
    }
}
