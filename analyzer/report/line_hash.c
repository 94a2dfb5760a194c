/* See report/line_hash.h. Arithmetic is modulo 2^64 (the action's 64-bit
 * integers wrap the same way); the hash is printed as unsigned hex. */
#include "report/line_hash.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

enum { WINDOW = 100, END_OF_FILE = 0xFFFF };
static const uint64_t BASE = 37;

typedef struct {
    uint32_t chars[WINDOW];   /* the last WINDOW characters hashed */
    long line_of[WINDOW];     /* the line a character starts, or 0 */
    size_t at;                /* the oldest slot, next to be replaced */
    uint64_t hash, base_pow;  /* base_pow: BASE^WINDOW, what the oldest weighs */
    long line;                /* lines started so far */
    bool line_start, after_cr;
    /* output */
    char **out;
    size_t nout, cap;
    /* how often each hash value was seen, for the ":<n>" suffix */
    uint64_t *seen;
    unsigned *seen_count;
    size_t nseen, seen_cap;
} hasher;

/* An open-addressing table (seen, seen_count; seen_cap a power of two, kept
 * under half full): lines of a large file would make a list quadratic. */
static unsigned count_of(hasher *h, uint64_t value)
{
    if (2 * (h->nseen + 1) > h->seen_cap) {
        size_t old_cap = h->seen_cap;
        uint64_t *old = h->seen;
        unsigned *old_count = h->seen_count;
        h->seen_cap = old_cap ? 2 * old_cap : 256;
        h->seen = xcalloc(h->seen_cap, sizeof *h->seen);
        h->seen_count = xcalloc(h->seen_cap, sizeof *h->seen_count);
        for (size_t i = 0; i < old_cap; i++) {
            if (!old_count[i])
                continue;
            size_t j = (size_t)(old[i] * 0x9E3779B97F4A7C15ULL >> 20) & (h->seen_cap - 1);
            while (h->seen_count[j])
                j = (j + 1) & (h->seen_cap - 1);
            h->seen[j] = old[i];
            h->seen_count[j] = old_count[i];
        }
        free(old);
        free(old_count);
    }
    size_t j = (size_t)(value * 0x9E3779B97F4A7C15ULL >> 20) & (h->seen_cap - 1);
    while (h->seen_count[j] && h->seen[j] != value)
        j = (j + 1) & (h->seen_cap - 1);
    if (!h->seen_count[j]) {
        h->seen[j] = value;
        h->nseen++;
    }
    return ++h->seen_count[j];
}

/* The line that starts at the oldest slot has its WINDOW characters hashed. */
static void emit(hasher *h)
{
    long line = h->line_of[h->at];
    if (line == 0)
        return;
    h->line_of[h->at] = 0;
    if ((size_t)line > h->cap) {
        size_t cap = h->cap ? h->cap : 64;
        while (cap < (size_t)line)
            cap *= 2;
        h->out = xrealloc(h->out, cap * sizeof *h->out);
        memset(h->out + h->cap, 0, (cap - h->cap) * sizeof *h->out);
        h->cap = cap;
    }
    unsigned n = count_of(h, h->hash);
    h->out[line - 1] = xasprintf("%" PRIx64 ":%u", h->hash, n);
    if ((size_t)line > h->nout)
        h->nout = (size_t)line;
}

static void push(hasher *h, uint32_t c)
{
    uint32_t oldest = h->chars[h->at];
    h->chars[h->at] = c;
    h->hash = BASE * h->hash + c - h->base_pow * oldest;
    h->at = (h->at + 1) % WINDOW;
}

static void take(hasher *h, uint32_t c)
{
    if (c == ' ' || c == '\t' || (h->after_cr && c == '\n')) {
        h->after_cr = false;
        return;
    }
    h->after_cr = c == '\r';
    if (c == '\r')
        c = '\n';
    emit(h);
    if (h->line_start) {
        h->line_start = false;
        h->line_of[h->at] = ++h->line;
    }
    if (c == '\n')
        h->line_start = true;
    push(h, c);
}

/* One code point from UTF-8 at *p (advanced); a byte that starts no valid
 * sequence reads as U+FFFD, as a UTF-8 decoder replaces it. */
static uint32_t next_code_point(const unsigned char **p, const unsigned char *end)
{
    const unsigned char *s = *p;
    unsigned n = s[0] < 0x80 ? 0 : (s[0] & 0xE0) == 0xC0 ? 1 : (s[0] & 0xF0) == 0xE0 ? 2
                               : (s[0] & 0xF8) == 0xF0 ? 3 : 4;
    if (n == 0) {
        *p = s + 1;
        return s[0];
    }
    static const uint32_t min[] = {0, 0x80, 0x800, 0x10000};
    uint32_t cp = n < 4 ? s[0] & (0x3F >> n) : 0;
    bool ok = n < 4 && (size_t)(end - s) > n;
    for (unsigned i = 1; ok && i <= n; i++) {
        ok = (s[i] & 0xC0) == 0x80;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (!ok || cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        *p = s + 1;
        return 0xFFFD;
    }
    *p = s + n + 1;
    return cp;
}

char **line_hashes(const char *text, size_t len, size_t *nlines)
{
    hasher h = {.line_start = true, .base_pow = 1};
    for (int i = 0; i < WINDOW; i++)
        h.base_pow *= BASE;
    const unsigned char *p = (const unsigned char *)text, *end = p + len;
    while (p < end) {
        uint32_t cp = next_code_point(&p, end);
        if (cp >= 0x10000) {   /* two UTF-16 units */
            take(&h, 0xD800 + ((cp - 0x10000) >> 10));
            take(&h, 0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            take(&h, cp);
        }
    }
    take(&h, END_OF_FILE);
    for (int i = 0; i < WINDOW; i++) {
        emit(&h);
        push(&h, 0);
    }
    free(h.seen);
    free(h.seen_count);
    *nlines = h.nout;
    return h.out;
}

void line_hashes_free(char **hashes, size_t nlines)
{
    for (size_t i = 0; i < nlines; i++)
        free(hashes[i]);
    free(hashes);
}
