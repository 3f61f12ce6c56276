#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>  /* key-store scale: RSA key generation */
