/* Facts of one file found in several translation units (a header analysed
 * in one unit per program that includes it): their union, each fact once.
 * Equality is read off each kind's description (facts/fact_kinds.def), so
 * a new field takes part without a line here. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "util/xalloc.h"

static bool same_texts(const fact_strs *a, const fact_strs *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->items[i], b->items[i]) != 0)
            return false;
    return true;
}

/* Whether two fields of each codec are equal. */
#define SAME_TEXT(a, b) (strcmp((a), (b)) == 0)
#define SAME_TEXT_OR_NULL(a, b) ((!(a) && !(b)) || ((a) && (b) && strcmp((a), (b)) == 0))
#define SAME_TEXTS(a, b) same_texts(&(a), &(b))
#define SAME_LOC(a, b) ((a).line == (b).line && (a).col == (b).col)
#define SAME_INT(a, b) ((a) == (b))
#define SAME_BOOL(a, b) ((a) == (b))

/* One function per kind: whether `into` already has `x`. */
#define FACT_KIND(type, array)                                                 \
    static bool has_##array(const file_facts *into, const type *x)             \
    {                                                                          \
        for (size_t i = 0; i < into->n_##array; i++) {                         \
            const type *y = &into->array[i];                                   \
            bool same = true;
#define FACT_FIELD(ctype, codec, name, key) same = same && SAME_##codec(x->name, y->name);
#define FACT_KIND_END                                                          \
            if (same)                                                          \
                return true;                                                   \
        }                                                                      \
        return false;                                                          \
    }
#include "facts/fact_kinds.def"

/* Room for n elements that XPUSH (util/xalloc.h) can go on appending to:
 * it reallocates only when the count reaches a power of two, so the
 * capacity must be at least the power of two at or above n. */
static size_t push_capacity(size_t n)
{
    size_t cap = 1;
    while (cap < n)
        cap *= 2;
    return cap;
}

void facts_merge(file_facts *into, file_facts *from)
{
#define FACT_KIND(type, array)                                                 \
    if (from->n_##array > 0) {                                                 \
        into->array = xrealloc(into->array, push_capacity(into->n_##array +     \
                                                          from->n_##array) *    \
                                                sizeof *into->array);          \
        size_t kept = into->n_##array;                                         \
        for (size_t i = 0; i < from->n_##array; i++) {                         \
            if (has_##array(into, &from->array[i]))                            \
                fact_free_##array(&from->array[i]);                             \
            else                                                               \
                into->array[kept++] = from->array[i];                          \
            into->n_##array = kept;                                            \
        }                                                                      \
    }                                                                          \
    free(from->array);
#include "facts/fact_kinds.def"
    free(from);
}
