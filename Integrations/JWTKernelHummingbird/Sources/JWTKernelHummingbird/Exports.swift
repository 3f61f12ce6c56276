// What the integration's API hands out and takes (`VerifiedJWT`, the provider claim types, `ClaimsPolicy`,
// `ProviderPreset`, `IssuerConfiguration`, `HTTPKeySource`, `KeySourceError`) comes from the core's modules:
// one import gives an application all of it, as Vapor's own packages re-export what they hand out.
@_exported public import JWTKernel
@_exported public import JWTKernelRemote
