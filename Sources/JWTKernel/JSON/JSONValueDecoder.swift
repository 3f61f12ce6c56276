/// Decodes any `Decodable` from a `JSONValue` tree (typed claims: `VerifiedJWT.decode(_:)`,
/// `verify(_:as:)`), without Foundation.
///
/// Numbers keep their original text (`JSONValue.number`), so each is read exactly for the type asked:
/// an integer type takes an integer literal in its range (`1.0`, `1e3` and `2.5` are not integers:
/// a type mismatch), `Double` and `Float` the nearest value. Keys are the JSON member names as
/// they are (no key strategy). A mismatch throws `DecodingError.typeMismatch` naming the coding path
/// and the JSON type found; a missing member, `DecodingError.keyNotFound`; an integer out of range,
/// `DecodingError.dataCorrupted`.
public struct JSONValueDecoder: Sendable {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONTreeDecoder(value, codingPath: []).decodeValue(type)
    }
}

extension JSONValue {
    /// The JSON type's name, for error messages.
    var typeName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// A coding key for array positions and `superDecoder`.
struct JSONCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
    static let superKey = JSONCodingKey(stringValue: "super")
}

struct JSONTreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, codingPath: [any CodingKey]) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: JSONValue].self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedJSONContainer<Key>(members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedJSONContainer(elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // Primitives directly: their own init(from:) would ask for a single-value container anyway.
        switch type {
        case is Bool.Type: return try decode(Bool.self) as! T
        case is String.Type: return try decode(String.self) as! T
        case is Double.Type: return try decode(Double.self) as! T
        case is Int64.Type: return try decode(Int64.self) as! T
        case is Int.Type: return try decode(Int.self) as! T
        case is JSONValue.Type: return value as! T
        default: return try T(from: self)
        }
    }
}

func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    .typeMismatch(
        type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.typeName)."))
}

extension JSONTreeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(type, value, codingPath) }
        return b
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let s) = value else { throw mismatch(type, value, codingPath) }
        return s
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case .number(let text) = value, let d = Double(text) else { throw mismatch(type, value, codingPath) }
        return d
    }

    func decode(_ type: Float.Type) throws -> Float {
        guard case .number(let text) = value, let f = Float(text) else { throw mismatch(type, value, codingPath) }
        return f
    }

    /// An integer literal (no fraction, no exponent) in `T`'s range.
    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = value else { throw mismatch(type, value, codingPath) }
        guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) else {
            throw DecodingError.typeMismatch(
                type,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Expected to decode \(type) but found the non-integer number \(text)."))
        }
        guard let n = T(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "The number \(text) does not fit in \(type)."))
        }
        return n
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

struct KeyedJSONContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [JSONValue.Member]
    let codingPath: [any CodingKey]

    init(_ members: [JSONValue.Member], codingPath: [any CodingKey]) {
        self.members = members
        self.codingPath = codingPath
    }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.name) } }

    func contains(_ key: Key) -> Bool { members.contains { $0.name == key.stringValue } }

    private func member(_ key: Key) throws -> JSONValue {
        guard let found = members.first(where: { $0.name == key.stringValue }) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No claim named \"\(key.stringValue)\"."))
        }
        return found.value
    }

    private func decoder(_ key: Key) throws -> JSONTreeDecoder {
        JSONTreeDecoder(try member(key), codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONTreeDecoder(
            members.first { $0.name == "super" }?.value ?? .null, codingPath: codingPath + [JSONCodingKey.superKey])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONTreeDecoder(members.first { $0.name == key.stringValue }?.value ?? .null, codingPath: codingPath + [key])
    }
}

struct UnkeyedJSONContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(_ elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next<T>(_ type: T.Type) throws -> JSONTreeDecoder {
        let key = JSONCodingKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath + [key], debugDescription: "The array has no more elements."))
        }
        defer { currentIndex += 1 }
        return JSONTreeDecoder(elements[currentIndex], codingPath: codingPath + [key])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next(type).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONValue].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(JSONValue.self) }
}

/// A `JSONValue` member of a typed claims struct takes that claim as it is (from `JSONValueDecoder`, the
/// tree itself, numbers with their original text); from another decoder, rebuilt from its containers.
extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        if let tree = decoder as? JSONTreeDecoder {
            self = tree.value
            return
        }
        if let keyed = try? decoder.container(keyedBy: JSONCodingKey.self) {
            self = .object(
                try keyed.allKeys.map {
                    Member(name: $0.stringValue, value: try keyed.decode(JSONValue.self, forKey: $0))
                })
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let b = try? single.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? single.decode(Int64.self) {
            self = .number(String(n))
        } else if let n = try? single.decode(UInt64.self) {
            self = .number(String(n))
        } else if let d = try? single.decode(Double.self) {
            self = .number("\(d)")
        } else {
            self = .string(try single.decode(String.self))
        }
    }
}
