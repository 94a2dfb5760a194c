/* Content hash of a file: the key under which its facts can be cached. */
#ifndef GPULINT_HASH_H
#define GPULINT_HASH_H

#include <stdbool.h>
#include <stddef.h>

/* Lower-case hex SHA-256 of data, NUL-terminated into out[65]. */
void sha256_hex(const void *data, size_t len, char out[65]);

/* git's object id of a blob with this content, in hex_len hex digits (40:
 * SHA-1, 64: SHA-256 repositories) and a NUL into out; false for another
 * length. */
bool git_blob_id_hex(const void *data, size_t len, size_t hex_len, char *out);

/* FNV-1a (64 bits) of n bytes, continuing from h (FNV1A_SEED to begin):
 * a fast, stable, non-cryptographic key for in-process tables, PCH file
 * names and shard choice. A string hashed with its NUL (strlen + 1) keeps
 * ("ab", "c") apart from ("a", "bc"). */
#define FNV1A_SEED 14695981039346656037ULL
unsigned long long fnv1a(unsigned long long h, const void *data, size_t n);

#endif
