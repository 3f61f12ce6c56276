/// What `jwtk verify --token-type` says the tokens are (NGINX Plus's `auth_jwt_type`).
enum TokenType: String, CaseIterable {
    case signed, nested, encrypted
}
