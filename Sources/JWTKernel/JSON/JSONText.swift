/// Byte-level transformations of validated JSON text.
@_spi(Internals)
public enum JSONText {
    /// Removes insignificant whitespace, keeping everything else byte for byte.
    /// Safe on any validated document: strings cannot contain raw control
    /// characters, so whitespace outside strings is the only whitespace.
    public static func compact(_ json: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.underestimatedCount)
        var inString = false, escaped = false
        for b in json {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
                out.append(b)
            } else {
                switch b {
                case 0x20, 0x0A, 0x0D, 0x09: continue
                case UInt8(ascii: "\""): inString = true; out.append(b)
                default: out.append(b)
                }
            }
        }
        return out
    }
}
