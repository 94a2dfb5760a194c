/* A file's facts' lifetime: what each kind owns is read off its description
 * (facts/fact_kinds.def), so a new field is freed without a line here. */
#include <stdlib.h>

#include "facts/facts.h"
#include "util/xalloc.h"

static void strs_free(fact_strs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->items[i]);
    free(s->items);
}

/* What freeing a field of each codec takes (see facts/fact_kinds.def). */
#define FREE_TEXT(field) free(field)
#define FREE_TEXT_OR_NULL(field) free(field)
#define FREE_TEXTS(field) strs_free(&(field))
#define FREE_LOC(field)
#define FREE_INT(field)
#define FREE_BOOL(field)

#define FACT_KIND(type, array)                                                 \
    void fact_free_##array(type *x)                                            \
    {                                                                          \
        (void)x;
#define FACT_FIELD(ctype, codec, name, key) FREE_##codec(x->name);
#define FACT_KIND_END }
#include "facts/fact_kinds.def"

void facts_free(file_facts *f)
{
    if (!f)
        return;
#define FACT_KIND(type, array)                                                 \
    for (size_t i = 0; i < f->n_##array; i++)                                  \
        fact_free_##array(&f->array[i]);                                       \
    free(f->array);
#include "facts/fact_kinds.def"
    free(f);
}

file_facts *facts_not_checked(fact_unchecked_cause cause, char *detail)
{
    file_facts *facts = xcalloc(1, sizeof *facts);
    facts->not_checked = xcalloc(1, sizeof *facts->not_checked);
    facts->n_not_checked = 1;
    facts->not_checked[0] = (fact_not_checked){.cause = cause, .detail = detail,
                                               .loc = {.line = 1, .col = 1}};
    return facts;
}
