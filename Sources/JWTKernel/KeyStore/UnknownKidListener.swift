/// Told when a token names a `kid` that its issuer's current keys lack (the
/// issuer may have rotated). Called on the verifying thread: it must return
/// at once, without I/O or waiting; a refresher only records the request.
public protocol UnknownKidListener: AnyObject, Sendable {
    func unknownKid()
}
