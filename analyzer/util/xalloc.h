/* Allocation that cannot fail: gpulint has no useful way to continue
 * without memory, so these print the reason and exit 3 (internal error). */
#ifndef GPULINT_XALLOC_H
#define GPULINT_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer, always NUL-terminated. */
typedef struct {
    char *data;
    size_t len, cap;
} byte_buf;

void buf_append(byte_buf *b, const void *data, size_t n);
void buf_free(byte_buf *b);

#endif
