#include "util/hash.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool git_blob_id_hex(const void *data, size_t len, size_t hex_len, char *out)
{
    const EVP_MD *md = hex_len == 40 ? EVP_sha1() : hex_len == 64 ? EVP_sha256() : NULL;
    if (!md)
        return false;
    /* git hashes "blob <size>\0" and then the content. */
    char header[32];
    int n = snprintf(header, sizeof header, "blob %zu", len);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    bool ok = ctx && EVP_DigestInit_ex(ctx, md, NULL) &&
              EVP_DigestUpdate(ctx, header, (size_t)n + 1) && EVP_DigestUpdate(ctx, data, len) &&
              EVP_DigestFinal_ex(ctx, digest, &dlen) && dlen * 2 == hex_len;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return false;
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < dlen; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[hex_len] = '\0';
    return true;
}

unsigned long long fnv1a(unsigned long long h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}
