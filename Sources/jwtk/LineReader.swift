import Glibc

/// Reads lines from a file descriptor in constant memory: a line longer than
/// `maxLineLength` is reported as `.tooLong` and skipped to its end without
/// being buffered. Surrounding whitespace (including `\r`) is trimmed and
/// blank lines are skipped.
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
        line.reserveCapacity(min(maxLineLength, 1 << 16) + 64)
        var overflowed = false

        func finish() {
            if overflowed {
                body(.tooLong)
            } else {
                var start = 0, end = line.count
                while start < end, isSpace(line[start]) { start += 1 }
                while end > start, isSpace(line[end - 1]) { end -= 1 }
                if start < end {
                    line.withUnsafeBytes { body(.line(UnsafeRawBufferPointer(rebasing: $0[start..<end]))) }
                }
            }
            line.removeAll(keepingCapacity: true)
            overflowed = false
        }

        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            for i in 0..<n {
                let b = chunk[i]
                if b == UInt8(ascii: "\n") {
                    finish()
                } else if !overflowed {
                    // A little slack so surrounding whitespace does not count against the limit.
                    if line.count >= maxLineLength + 64 { overflowed = true; line.removeAll(keepingCapacity: true) } else { line.append(b) }
                }
            }
        }
        if overflowed || !line.isEmpty { finish() }
    }

    private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }
}
