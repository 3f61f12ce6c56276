import CJWTK
@_spi(Internals) import JWTKernel

/// One jwtk_verify_batch call: route every token to its issuer's core verifier (the jwtk_verifier's
/// `MultiIssuerVerifier`, `route(of:)`), then hand each group to the core's batch path
/// (`JWTVerifier.verifyBatch`, on up to `batch_threads` cores). A token routed by its payload is read
/// again by its route's pipeline (jwtk_verify reads it once). Allocates per call (the groups), never per
/// token inside the core.
struct BatchRun {
    let verifier: VerifierState
    let now: Int64

    func run(
        _ tokens: UnsafePointer<UnsafePointer<CChar>?>, _ lengths: UnsafePointer<Int>, _ n: Int,
        _ statuses: UnsafeMutablePointer<Int32>
    ) {
        let routes = verifier.routes(reusing: nil)
        let limit = verifier.settings.maxTokenSize
        if verifier.settings.tokenType != .signed {
            return runEncrypted(routes, tokens, lengths, n, statuses)
        }
        // Tokens per core verifier, in first-seen order.
        var groups: [ObjectIdentifier: (core: JWTVerifier, members: [Int])] = [:]
        var order: [ObjectIdentifier] = []
        for i in 0..<n {
            guard let p = tokens[i] else { statuses[i] = JWTK_E_NULL; continue }
            let length = lengths[i]
            guard length >= 0, length <= limit else { statuses[i] = JWTK_TOO_LARGE; continue }
            // Safety: lengths[i] readable bytes at tokens[i] for the call; 0 <= length <= max_token_size.
            let bytes = UnsafeRawBufferPointer(start: p, count: length)
            let core: JWTVerifier
            do throws(JWTError) {
                core = try routes.verifier.route(of: bytes)
            } catch {
                statuses[i] = error.code.number
                continue
            }
            let id = ObjectIdentifier(core)
            if groups[id] == nil { groups[id] = (core, []); order.append(id) }
            groups[id]!.members.append(i)
        }
        for id in order {
            let group = groups[id]!
            verify(group.core, group.members, tokens, lengths, statuses)
        }
        for i in 0..<n { verifier.count(statuses[i]) }
    }

    /// The core's batch path, `now` passed as an argument (0: the verifier's clock): nothing is built per call.
    private func verify(
        _ core: JWTVerifier, _ members: [Int], _ tokens: UnsafePointer<UnsafePointer<CChar>?>,
        _ lengths: UnsafePointer<Int>, _ statuses: UnsafeMutablePointer<Int32>
    ) {
        // Safety: members are indices whose pointer is non-NULL and whose length was checked in `run`.
        let views = members.map { UnsafeRawBufferPointer(start: tokens[$0]!, count: lengths[$0]) }
        var results = [JWTError?](repeating: nil, count: members.count)
        views.withUnsafeBufferPointer { input in
            results.withUnsafeMutableBufferPointer { output in
                core.verifyBatch(
                    input, results: output, threads: verifier.settings.batchThreads, at: now == 0 ? nil : now)
            }
        }
        for (k, i) in members.enumerated() { statuses[i] = results[k]?.code.number ?? JWTK_OK }
    }

    /// Nested and encrypted-only tokens one after another on the calling thread, through the same calls as
    /// jwtk_verify (decryption dominates; the batch threads are for signatures).
    private func runEncrypted(
        _ routes: Routes, _ tokens: UnsafePointer<UnsafePointer<CChar>?>, _ lengths: UnsafePointer<Int>, _ n: Int,
        _ statuses: UnsafeMutablePointer<Int32>
    ) {
        let at = now == 0 ? nil : now
        for i in 0..<n {
            guard let p = tokens[i] else { statuses[i] = JWTK_E_NULL; continue }
            let length = lengths[i]
            guard length >= 0, length <= verifier.settings.maxTokenSize else { statuses[i] = JWTK_TOO_LARGE; continue }
            // Safety: lengths[i] readable bytes at tokens[i] for the call; 0 <= length <= max_token_size.
            let bytes = UnsafeRawBufferPointer(start: p, count: length)
            do throws(JWTError) {
                let decryptor = try decryptor(verifier)
                if verifier.settings.tokenType == .nested {
                    var outcome = CacheOutcome.notUsed
                    try routes.verifier.verifyNestedLending(bytes, decryptor: decryptor, at: at, cacheOutcome: &outcome)
                    { _ in }
                } else {
                    try routes.verifier.verifyEncryptedLending(bytes, decryptor: decryptor, at: at) { _ in }
                }
                statuses[i] = JWTK_OK
            } catch {
                statuses[i] = error.code.number
            }
        }
        for i in 0..<n { verifier.count(statuses[i]) }
    }
}
