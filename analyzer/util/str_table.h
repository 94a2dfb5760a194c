/* An in-process set of strings, each under a tag (a 64-bit key of the
 * context it holds for), with an optional value: the include-hazard scan's
 * headers known clean per flags (extract/includes.c) and the run's stat
 * memo (extract/cache.c). Open addressing on fnv1a, at most half full. Not
 * thread-safe: a caller shared by threads holds its own lock. */
#ifndef GPULINT_STR_TABLE_H
#define GPULINT_STR_TABLE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *key;                 /* NULL: a free slot */
    unsigned long long tag;
    void *value;               /* the caller's; NULL until it sets one */
} str_table_entry;

typedef struct {
    str_table_entry *slots;
    size_t cap, n;             /* cap: 0 or a power of two */
} str_table;

#define STR_TABLE_INIT {NULL, 0, 0}

/* The entry of (tag, key), or NULL. */
str_table_entry *str_table_find(const str_table *t, unsigned long long tag, const char *key);

/* The entry of (tag, key), added (a copy of key, value NULL) if it was not
 * there; *added says which. The pointer holds until the next add. */
str_table_entry *str_table_add(str_table *t, unsigned long long tag, const char *key, bool *added);

/* Every entry removed, free_value (if not NULL) called on each value. */
void str_table_clear(str_table *t, void (*free_value)(void *));

#endif
