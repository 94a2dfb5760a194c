#include "util/hash.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

void sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    if (!EVP_Digest(data, len, digest, &dlen, EVP_sha256(), NULL) || dlen != 32) {
        fputs("gpulint: internal error: SHA-256 failed (OpenSSL)\n", stderr);
        exit(3);
    }
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < 32; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[64] = '\0';
}
