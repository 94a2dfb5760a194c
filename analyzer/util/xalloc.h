/* Allocation that cannot fail: gpulint has no useful way to continue
 * without memory, so these print the reason and exit 3 (internal error). */
#ifndef GPULINT_XALLOC_H
#define GPULINT_XALLOC_H

#include <stddef.h>
#include <string.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Free n strings and the array holding them (either may be NULL when n is 0). */
void str_array_free(char **strs, size_t n);

/* Append one element to an array (type *arr; size_t count), zeroed, and
 * give its address: a field the caller forgets is 0, never whatever the heap
 * held (which once made a finding depend on what another file's parse had
 * left there). The capacity is implied by the count: the array doubles when
 * the count reaches a power of two, so n appends cost O(n) copying, not the
 * O(n^2) of growing by one. The array must only ever be grown by XPUSH (or
 * its count lowered); sized another way, keep a capacity instead. */
#define XPUSH(arr, count)                                                     \
    (((count) & ((count) - 1)) == 0                                           \
         ? (void)((arr) = xrealloc((arr), ((count) ? 2 * (count) : 1) * sizeof *(arr))) \
         : (void)0,                                                           \
     memset(&(arr)[(count)], 0, sizeof *(arr)),                               \
     &(arr)[(count)++])

/* A growable byte buffer, always NUL-terminated. */
typedef struct {
    char *data;
    size_t len, cap;
} byte_buf;

void buf_append(byte_buf *b, const void *data, size_t n);
void buf_free(byte_buf *b);

#endif
