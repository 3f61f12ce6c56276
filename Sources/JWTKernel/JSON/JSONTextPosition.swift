/// A byte offset in a JSON document as a person finds it in an editor: a line (from 1, after each
/// LF) and a column (from 1, counting characters: UTF-8 continuation bytes do not advance it).
/// Computed only when an error about a configuration file is shown, never while parsing.
public struct JSONTextPosition: Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The position of `offset` in `document` (an offset past the end is the end).
    public init(offset: Int, in document: some Collection<UInt8>) {
        var line = 1, column = 1
        for byte in document.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.init(line: line, column: column)
    }

    public var description: String { "line \(line), column \(column)" }
}
