import CJWTK

@c @implementation
public func jwtk_status_name(_ status: Int32) -> UnsafePointer<CChar>? { cString(StatusTable.name(status)) }

@c @implementation
public func jwtk_errstr(_ status: Int32) -> UnsafePointer<CChar>? { cString(StatusTable.text(status)) }

@c @implementation
public func jwtk_status_http(_ status: Int32) -> Int32 { StatusTable.http(status) }

@c @implementation
public func jwtk_status_bearer_error(_ status: Int32) -> UnsafePointer<CChar>? {
    StatusTable.bearerError(status).map(cString)
}
