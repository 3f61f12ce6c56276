#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>  /* key-store scale: RSA key generation; JWE floor: RSA-OAEP */
#include <openssl/pem.h>  /* JWE floor: PEM private and public keys */
#include <openssl/ecdsa.h>  /* JWE floor: the inner ES256 signature as DER */
#include <openssl/bn.h>
