/* Content hash of a file: the key under which its facts can be cached. */
#ifndef GPULINT_HASH_H
#define GPULINT_HASH_H

#include <stddef.h>

/* Lower-case hex SHA-256 of data, NUL-terminated into out[65]. */
void sha256_hex(const void *data, size_t len, char out[65]);

#endif
