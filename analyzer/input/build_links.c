#include "input/build_links.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static int by_id(const void *a, const void *b)
{
    return strcmp(((const link_target *)a)->id, ((const link_target *)b)->id);
}

static int by_member(const void *a, const void *b)
{
    const build_link *x = a, *y = b;
    int c = strcmp(x->member, y->member);
    return c ? c : strcmp(x->program, y->program);
}

static long find_id(const link_target *ts, size_t n, const char *id)
{
    link_target key = {.id = (char *)id};
    const link_target *hit = bsearch(&key, ts, n, sizeof *ts, by_id);
    return hit ? hit - ts : -1;
}

/* Each program's members: itself and the libraries it reaches through
 * library dependencies. */
void build_links_from(link_target *ts, size_t n, build_links *map)
{
    memset(map, 0, sizeof *map);
    if (n == 0)
        return;
    qsort(ts, n, sizeof *ts, by_id);
    bool *seen = xcalloc(n + 1, sizeof *seen);
    size_t *stack = xcalloc(n + 1, sizeof *stack);
    for (size_t p = 0; p < n; p++) {
        if (!ts[p].program)
            continue;
        memset(seen, 0, n * sizeof *seen);
        size_t top = 0;
        stack[top++] = p;
        seen[p] = true;
        while (top) {
            const link_target *m = &ts[stack[--top]];
            *XPUSH(map->links, map->n) =
                (build_link){.member = xstrdup(m->key), .program = xstrdup(ts[p].key)};
            for (size_t k = 0; k < m->ndeps; k++) {
                long d = find_id(ts, n, m->deps[k]);
                if (d >= 0 && !seen[d] && ts[d].library) {
                    seen[d] = true;
                    stack[top++] = (size_t)d;
                }
            }
        }
    }
    free(stack);
    free(seen);
    if (map->n)
        qsort(map->links, map->n, sizeof *map->links, by_member);
}

void link_targets_free(link_target *ts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ts[i].id);
        free(ts[i].key);
        str_array_free(ts[i].deps, ts[i].ndeps);
    }
    free(ts);
}

void build_links_free(build_links *map)
{
    for (size_t i = 0; i < map->n; i++) {
        free(map->links[i].member);
        free(map->links[i].program);
    }
    free(map->links);
    memset(map, 0, sizeof *map);
}

const build_link *build_links_of(const build_links *map, const char *member, size_t *n)
{
    size_t lo = 0, hi = map->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(map->links[mid].member, member) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < map->n && strcmp(map->links[end].member, member) == 0)
        end++;
    *n = end - lo;
    return *n ? &map->links[lo] : NULL;
}
