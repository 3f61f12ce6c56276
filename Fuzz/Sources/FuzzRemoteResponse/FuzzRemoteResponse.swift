// FuzzRemoteResponse: the remote JWKS response handling of JWTKernelRemote, without a network.
// The input is a script for one issuer's `KeyRefresher` on an injected clock: scripted HTTP
// responses (status, header bytes split into lines, body bytes in chunks, a size cap) or transport
// failures, time advances, unknown-kid reports (a verification naming a kid the keys lack), and
// `refreshDue()` / `refreshNow()` calls. Each response goes through the library's own header
// reading, capped body and status handling (`ScriptedSource.swift`, checked against an independent
// byte-level header reader), then through the refresher's decision: publish, keep the last good
// keys, mark stale, withdraw, back off; `RefresherModel.swift` says what each step must leave in
// the refresher's stats and the store.
//
// Script ops (op byte % 6): 0 advance the clock; 1 a response, then refreshDue; 2 a transport
// failure, then refreshDue; 3 an unknown-kid report, then refreshDue; 4 refreshNow; 5 a response,
// then refreshNow. A response: status byte (low 4 bits: status table, bits 4-5: body cap), header
// length byte and bytes, body length (2 bytes, little-endian) and bytes, chunk size byte.
import FuzzSupport
@_spi(Internals) import JWTKernel
@_spi(Fuzzing) import JWTKernelRemote

let issuer = "https://issuer.example"
let statuses = [200, 200, 200, 200, 304, 304, 301, 302, 404, 500, 503, 204, 0, 999, 303, 200]
let caps = [1 << 20, 64, 512, 0]
let steps: [Double] = [
    0, 1, 2, 29, 30, 31, 47, 48, 59, 60, 61, 299, 300, 479, 480, 481, 599, 600, 3599, 3600, 86399, 86400, 86401,
    172_800,
]
let failureReasons: [KeySourceError.Reason] = [.timeout, .connect, .tls, .truncated, .tooLarge, .redirect, .other]

/// The refresher's clock, moved by the script.
// Safety: @unchecked because only the harness thread reads or moves it (no refresher thread is started).
final class ScriptClock: RefreshClock, @unchecked Sendable {
    var time: Double = 1000
    func now() -> Double { time }
}

/// A token naming a kid no fetched set is likely to hold: verifying it reports an unknown kid.
let probeToken: [UInt8] = {
    var t: [UInt8] = []
    let header = Array(#"{"alg":"HS256","kid":"probe-kid"}"#.utf8)
    let claims = Array(#"{"iss":"\#(issuer)","exp":\#(FuzzFixtures.now + 3600)}"#.utf8)
    header.withUnsafeBytes { ReferenceBase64URL.encode($0, into: &t) }
    t.append(UInt8(ascii: "."))
    claims.withUnsafeBytes { ReferenceBase64URL.encode($0, into: &t) }
    return t + Array(".c2ln".utf8)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteResponse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var at = 0
    func next() -> UInt8 {
        guard at < input.count else { return 0 }
        defer { at += 1 }
        return input[at]
    }
    func take(_ n: Int) -> [UInt8] {
        let n = min(n, input.count - at)
        defer { at += n }
        return Array(input[at..<(at + n)])
    }

    let clock = ScriptClock()
    let store = KeyStore(stripes: 1)
    let refresher = KeyRefresher(store: store, clock: clock)
    let source = ScriptedSource()
    refresher.add(issuer: issuer, source: source)
    let verifier = MultiIssuerVerifier(
        store: store, issuers: [IssuerConfiguration(issuer: issuer)], clock: FixedClock(FuzzFixtures.now))
    var model = RefresherModel(now: clock.time)
    var keyIDs: [ObjectIdentifier]? = nil

    func response() -> ScriptedResponse {
        let s = next()
        let status = statuses[Int(s & 0x0f)]
        let cap = caps[Int(s >> 4 & 3)]
        let block = take(Int(next()))
        var lines: [[UInt8]] = [Array("HTTP/1.1 \(status) X\r\n".utf8)]
        var line: [UInt8] = []
        for b in block {
            line.append(b)
            if b == UInt8(ascii: "\n") { lines.append(line); line = [] }
        }
        if !line.isEmpty { lines.append(line) }
        let count = Int(next()) | Int(next()) << 8
        let body = take(count)
        let chunk = max(1, Int(next()))
        let chunks = stride(from: 0, to: body.count, by: chunk).map { Array(body[$0..<min($0 + chunk, body.count)]) }
        return .http(status: status, headerLines: lines, chunks: chunks, cap: cap)
    }

    func refreshDue() {
        let before = source.records.count
        let made = refresher.refreshDue()
        require(made == source.records.count - before, "refreshDue reported \(made) fetches")
        model.refreshDue(clock.time, source.records[before...])
    }

    func refreshNow() {
        let before = source.records.count
        require(refresher.refreshNow(issuer: issuer), "refreshNow refused a registered issuer")
        require(source.records.count == before + 1, "refreshNow made \(source.records.count - before) fetches")
        model.apply(source.records[before], now: clock.time, byUnknownKid: false)
    }

    refreshDue()  // the first fetch is due at once
    model.check(refresher, store, issuer: issuer, previousKeys: &keyIDs)
    model.published = false
    // At most 48 steps: longer scripts reach no new state, only make each input slow.
    var stepsLeft = 48
    while at < input.count, stepsLeft > 0 {
        stepsLeft -= 1
        switch next() % 6 {
        case 0:
            let x = next()
            clock.time += x < 0x80 ? steps[Int(x) % steps.count] : Double(x & 0x7f) * Double(x & 0x7f) * 7
            refreshDue()
        case 1:
            source.queue.append(response())
            refreshDue()
        case 2:
            source.queue.append(.failure(failureReasons[Int(next()) % failureReasons.count]))
            refreshDue()
        case 3:
            let code = probeToken.withUnsafeBytes { verifier.check($0) }?.code
            require(
                (code == .keysUnavailable) == !model.hasKeys,
                "probe token: \(code?.name ?? "ok") with hasKeys \(model.hasKeys)")
            if code == .unknownKid {
                if model.unknownKidPending { model.suppressed += 1 } else { model.unknownKidPending = true }
            }
            refreshDue()
        case 4:
            refreshNow()
        default:
            source.queue.append(response())
            refreshNow()
        }
        model.check(refresher, store, issuer: issuer, previousKeys: &keyIDs)
        model.published = false
    }
    return 0
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzRemoteResponse", fuzzRemoteResponse) }
}
#endif
