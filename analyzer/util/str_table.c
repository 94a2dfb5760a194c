#include "util/str_table.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/xalloc.h"

/* The key is hashed with its NUL after the tag, so that no (tag, key) pair
 * can be spelled as another by moving bytes between them. */
static size_t home_slot(const str_table *t, unsigned long long tag, const char *key)
{
    return (size_t)fnv1a(fnv1a(FNV1A_SEED, &tag, sizeof tag), key, strlen(key) + 1) & (t->cap - 1);
}

/* The slot holding (tag, key), else the free slot where it would go. */
static str_table_entry *probe(const str_table *t, unsigned long long tag, const char *key)
{
    size_t i = home_slot(t, tag, key);
    while (t->slots[i].key && (t->slots[i].tag != tag || strcmp(t->slots[i].key, key) != 0))
        i = (i + 1) & (t->cap - 1);
    return &t->slots[i];
}

str_table_entry *str_table_find(const str_table *t, unsigned long long tag, const char *key)
{
    if (!t->cap)
        return NULL;
    str_table_entry *e = probe(t, tag, key);
    return e->key ? e : NULL;
}

static void grow(str_table *t)
{
    str_table_entry *old = t->slots;
    size_t old_cap = t->cap;
    t->cap = old_cap ? 2 * old_cap : 256;
    t->slots = xcalloc(t->cap, sizeof *t->slots);
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key)
            *probe(t, old[i].tag, old[i].key) = old[i];
    free(old);
}

str_table_entry *str_table_add(str_table *t, unsigned long long tag, const char *key, bool *added)
{
    if (2 * (t->n + 1) > t->cap)
        grow(t);
    str_table_entry *e = probe(t, tag, key);
    *added = !e->key;
    if (*added) {
        *e = (str_table_entry){.key = xstrdup(key), .tag = tag};
        t->n++;
    }
    return e;
}

void str_table_clear(str_table *t, void (*free_value)(void *))
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].key) {
            free(t->slots[i].key);
            if (free_value)
                free_value(t->slots[i].value);
        }
    free(t->slots);
    *t = (str_table)STR_TABLE_INIT;
}
