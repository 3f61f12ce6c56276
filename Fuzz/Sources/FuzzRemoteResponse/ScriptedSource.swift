// FuzzRemoteResponse's key source: each fetch takes the next scripted HTTP response and runs it
// through the same code `HTTPKeySource` runs on what curl delivers (header lines into
// `HTTPResponseHead`, body chunks into the capped `ResponseBody`, then `HTTPKeySource.interpret`),
// checking the header reading against `ReferenceHead` and the outcome against the status table.
// No network: the transport's own failures (timeout, TLS, ...) are scripted as errors.
import FuzzSupport
@_spi(Internals) import JWTKernel
@_spi(Fuzzing) import JWTKernelRemote

/// One scripted response, or a transport failure.
enum ScriptedResponse {
    case http(status: Int, headerLines: [[UInt8]], chunks: [[UInt8]], cap: Int)
    case failure(KeySourceError.Reason)
}

/// What a fetch returned, for the refresher model.
struct FetchRecord {
    var sentETag: String?
    var result: Result<KeyFetch, KeySourceError>
}

// Safety: @unchecked because the refresher calls `fetch` only from `refreshDue`/`refreshNow`,
// which the harness runs on its one thread; nothing else touches the queue or the records.
final class ScriptedSource: KeySource, @unchecked Sendable {
    var queue: [ScriptedResponse] = []
    var records: [FetchRecord] = []

    func fetch(ifNoneMatch etag: String?) throws(KeySourceError) -> KeyFetch {
        let result = Result { () throws(KeySourceError) -> KeyFetch in
            guard !queue.isEmpty else { throw KeySourceError(.timeout, "no scripted response") }
            switch queue.removeFirst() {
            case .failure(let reason): throw KeySourceError(reason, "scripted transport failure")
            case .http(let status, let lines, let chunks, let cap):
                return try Self.respond(status: status, lines: lines, chunks: chunks, cap: cap, etag: etag)
            }
        }
        records.append(FetchRecord(sentETag: etag, result: result))
        return try result.get()
    }

    /// The library's response handling on scripted bytes, each step checked.
    static func respond(
        status: Int, lines: [[UInt8]], chunks: [[UInt8]], cap: Int, etag: String?
    ) throws(KeySourceError) -> KeyFetch {
        var head = HTTPResponseHead()
        for line in lines { line.withUnsafeBytes { head.consume(line: $0) } }
        checkHead(head, ReferenceHead(lines: lines, maxLineLength: HTTPResponseHead.maxLineLength))

        var body = ResponseBody(cap: cap)
        var total = 0
        for chunk in chunks {
            let ok = chunk.withUnsafeBytes { body.append($0) }
            total += chunk.count
            require(ok == (total <= cap), "ResponseBody: \(total) bytes against a cap of \(cap), append said \(ok)")
            guard ok else { throw KeySourceError(.tooLarge, "response exceeds \(cap) bytes") }
        }
        require(body.bytes == Array(chunks.joined()), "ResponseBody lost or reordered bytes")

        let outcome = Result { () throws(KeySourceError) in
            try HTTPKeySource.interpret(status: status, head: head, body: body.bytes, ifNoneMatch: etag)
        }
        switch (status, outcome) {
        case (200, .success(.some(.document(let doc, let freshness)))):
            require(head.isJSONOrUnlabelled, "a non-JSON 200 was taken as a document")
            require(doc == body.bytes, "the document is not the body")
            require(freshness == KeyFreshness(maxAge: head.maxAge, etag: head.etag), "200: freshness \(freshness)")
        case (200, .failure(let e)):
            require(!head.isJSONOrUnlabelled && e.reason == .notJSON, "200 refused with \(e)")
        case (304, .success(.some(.notModified(let freshness)))):
            require(
                freshness == KeyFreshness(maxAge: head.maxAge, etag: head.etag ?? etag), "304: freshness \(freshness)")
        case (301, .success(nil)), (302, .success(nil)), (303, .success(nil)), (307, .success(nil)),
            (308, .success(nil)):
            throw KeySourceError(.redirect, "scripted redirect (not followed without a network)")
        case (_, .failure(let e)) where ![200, 304, 301, 302, 303, 307, 308].contains(status):
            require(e.reason == .httpStatus, "HTTP \(status) refused as \(e.reason)")
        default:
            invariantFailed("HTTP \(status): unexpected outcome \(outcome)")
        }
        return try outcome.get()!
    }

    static func checkHead(_ head: HTTPResponseHead, _ ref: ReferenceHead) {
        if let m = head.maxAge { require((0...9_999_999_999).contains(m), "max-age \(m) out of range") }
        if let e = head.etag {
            require(
                !e.isEmpty && e.unicodeScalars.first != " " && e.unicodeScalars.last != " ", "ETag \(e) not trimmed")
        }
        guard !ref.nonASCII else { return }
        require(
            head.maxAge == ref.effectiveMaxAge,
            "max-age \(String(describing: head.maxAge)), reference \(String(describing: ref.effectiveMaxAge))")
        require(
            head.etag == ref.etag, "ETag \(String(describing: head.etag)), reference \(String(describing: ref.etag))")
        require(
            head.contentType.map { Array($0.utf8) } == ref.contentType,
            "Content-Type \(String(describing: head.contentType))")
        require(
            head.isJSONOrUnlabelled == ref.isJSON,
            "JSON media type: \(head.isJSONOrUnlabelled), reference \(ref.isJSON)")
    }
}
