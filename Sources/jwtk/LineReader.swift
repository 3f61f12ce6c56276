import Glibc

/// Reads lines from a file descriptor in constant memory, one `Line` per input
/// line so that results can be pasted next to their inputs.
///
/// Only the terminator is removed: `\n`, and a `\r` right before it (files
/// written on Windows). Nothing else is trimmed, so a token gets the same
/// verdict on stdin as the same bytes given as an argument. An empty line is
/// an (empty) line; a last line without `\n` still counts; zero bytes of input
/// give no line at all. A line longer than `maxLineLength` is reported as
/// `.tooLong` and skipped to its end without being buffered.
struct LineReader {
    enum Line {
        case line(UnsafeRawBufferPointer)
        case tooLong
    }

    let fd: Int32
    let maxLineLength: Int

    func forEachLine(_ body: (Line) -> Void) {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var line: [UInt8] = []
        line.reserveCapacity(min(maxLineLength, 1 << 16) + 1)
        var overflowed = false
        var pending = false  // bytes seen since the last `\n`: a last line without one still counts

        func finish(terminated: Bool) {
            if overflowed {
                body(.tooLong)
            } else {
                var end = line.count
                if terminated, end > 0, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                if end > maxLineLength {
                    body(.tooLong)
                } else {
                    line.withUnsafeBytes { body(.line(UnsafeRawBufferPointer(rebasing: $0[0..<end]))) }
                }
            }
            line.removeAll(keepingCapacity: true)
            overflowed = false
            pending = false
        }

        // Bytes of the current line; past the limit (plus one byte of room for a `\r` that
        // turns out to precede `\n`) the line is only skipped, never buffered.
        func take(_ bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            pending = true
            guard !overflowed else { return }
            if bytes.count - 1 > maxLineLength - line.count {
                overflowed = true
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(contentsOf: bytes)
            }
        }

        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            chunk.withUnsafeBytes { raw in
                var start = 0
                while start < n {
                    guard let newline = memchr(raw.baseAddress! + start, Int32(UInt8(ascii: "\n")), n - start) else {
                        take(UnsafeRawBufferPointer(rebasing: raw[start..<n]))
                        break
                    }
                    let end = raw.baseAddress!.distance(to: UnsafeRawPointer(newline))
                    take(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                    finish(terminated: true)
                    start = end + 1
                }
            }
        }
        if pending { finish(terminated: false) }
    }
}
