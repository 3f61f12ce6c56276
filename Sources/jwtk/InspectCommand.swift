import ArgumentParser
import Foundation
@_spi(Internals) import JWTKernel

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode and pretty-print a token's header and claims WITHOUT verifying it."
    )

    @Argument(help: "The token to decode.")
    var token: String

    func run() throws {
        print(
            "*** NOT VERIFIED: signature, issuer, audience and times were not checked. Do not trust this content. ***")
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            print("error: a compact JWS has 3 segments; this token has \(segments.count)")
            throw ExitCode(1)
        }
        for (title, segment) in [("header", segments[0]), ("claims", segments[1])] {
            print("\(title):")
            guard let bytes = Base64URL.decode(segment) else {
                print("  (not canonical base64url)")
                throw ExitCode(1)
            }
            do {
                print(try JSONValue.parse(bytes).serialized(pretty: true))
            } catch {
                print("  (not strict JSON: \(error.message))")
                throw ExitCode(1)
            }
        }
        print("signature: \(segments[2].count) base64url characters")
    }
}
