#include "rules/symbol_index.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static int by_usr(const void *a, const void *b)
{
    const symbol_def *x = a, *y = b;
    int c = strcmp(x->fn->usr, y->fn->usr);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int by_name(const void *a, const void *b)
{
    const symbol_def *x = *(const symbol_def *const *)a, *y = *(const symbol_def *const *)b;
    int c = strcmp(x->fn->name, y->fn->name);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

void symbol_index_build(symbol_index *idx, const analysis *a,
                        bool (*wanted)(const fact_function *fn))
{
    memset(idx, 0, sizeof *idx);
    idx->snap = a->snap;
    programs_build(&idx->programs, a);
    /* Sized once: growing by one per definition copied the whole array each
     * time under ASan's realloc (a 110,000-function file: minutes). */
    size_t most = 0;
    for (size_t fi = 0; fi < a->snap->nfiles; fi++)
        most += a->facts[fi]->n_functions;
    idx->defs = xmalloc((most ? most : 1) * sizeof *idx->defs);
    size_t order = 0;
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const file_facts *facts = a->facts[fi];
        for (size_t k = 0; k < facts->n_functions; k++) {
            const fact_function *f = &facts->functions[k];
            if (!f->is_definition || !wanted(f))
                continue;
            idx->defs[idx->n++] = (symbol_def){ .fn = f, .file = fi, .order = order++ };
        }
    }
    if (idx->n)   /* qsort's array may not be NULL, even empty (UBSan) */
        qsort(idx->defs, idx->n, sizeof *idx->defs, by_usr);
    idx->by_name = xmalloc((idx->n ? idx->n : 1) * sizeof *idx->by_name);
    for (size_t i = 0; i < idx->n; i++)
        idx->by_name[i] = &idx->defs[i];
    qsort(idx->by_name, idx->n, sizeof *idx->by_name, by_name);
}

void symbol_index_free(symbol_index *idx)
{
    free(idx->defs);
    free(idx->by_name);
    programs_free(&idx->programs);
    memset(idx, 0, sizeof *idx);
}

size_t symbol_index_usr(const symbol_index *idx, const char *usr, size_t *first)
{
    size_t lo = 0, hi = idx->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(idx->defs[mid].fn->usr, usr) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < idx->n && strcmp(idx->defs[end].fn->usr, usr) == 0)
        end++;
    *first = lo;
    return end - lo;
}

static size_t common_prefix(const char *a, const char *b)
{
    size_t n = 0;
    while (a[n] && a[n] == b[n])
        n++;
    return n;
}

long symbol_index_resolve(const symbol_index *idx, const char *usr, size_t file)
{
    size_t first, n = symbol_index_usr(idx, usr, &first);
    long best = -1;
    size_t best_prefix = 0;
    program_relation best_rel = PROGRAMS_SEPARATE;
    for (size_t i = first; i < first + n; i++) {
        const symbol_def *cand = &idx->defs[i];
        if (cand->file == file)
            return (long)i;
        program_relation rel = programs_relate(&idx->programs, cand->file, file);
        if (rel == PROGRAMS_SEPARATE)
            continue;
        size_t prefix = common_prefix(idx->snap->files[cand->file].path,
                                      idx->snap->files[file].path);
        if (best < 0 || rel > best_rel || (rel == best_rel && prefix > best_prefix)) {
            best = (long)i;
            best_prefix = prefix;
            best_rel = rel;
        }
    }
    return best;
}

symbol_list symbol_index_candidates(const symbol_index *idx, const char *name, size_t file)
{
    size_t lo = 0, hi = idx->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(idx->by_name[mid]->fn->name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < idx->n && strcmp(idx->by_name[end]->fn->name, name) == 0)
        end++;
    symbol_list out = { 0 };
    for (int own_file_only = 1; own_file_only >= 0 && out.n == 0; own_file_only--)
        for (size_t i = lo; i < end; i++) {
            const symbol_def *d = idx->by_name[i];
            if (own_file_only ? d->file != file : d->fn->is_static)
                continue;
            *XPUSH(out.items, out.n) = d;
        }
    return out;
}
