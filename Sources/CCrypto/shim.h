// libcrypto (OpenSSL 3, already loaded by libcurl) for CacheCore's SHA-256, the one digest Larder computes.
// SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP, whose per-call digest fetch costs
// more than hashing a URL does; they remain in every 3.x release, so their deprecation is silenced here,
// and only here.
#ifndef LARDER_CCRYPTO_SHIM_H
#define LARDER_CCRYPTO_SHIM_H
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#endif
