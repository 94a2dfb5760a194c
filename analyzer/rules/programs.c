#include "rules/programs.h"

#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "util/paths.h"
#include "util/xalloc.h"

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool defines_main(const file_facts *facts)
{
    for (size_t k = 0; k < facts->n_functions; k++) {
        const fact_function *f = &facts->functions[k];
        if (f->is_definition && !f->is_static && strcmp(f->name, "main") == 0)
            return true;
    }
    return false;
}

void programs_build(program_map *pm, const analysis *a)
{
    memset(pm, 0, sizeof *pm);
    pm->snap = a->snap;
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const source_file *f = &a->snap->files[fi];
        if (f->ntargets == 0 || !defines_main(a->facts[fi]))
            continue;
        for (size_t t = 0; t < f->ntargets; t++)
            *XPUSH(pm->executables, pm->nexecutables) = f->targets[t];
    }
    if (pm->nexecutables)   /* qsort's array may not be NULL (UBSan) */
        qsort(pm->executables, pm->nexecutables, sizeof *pm->executables, by_text);
}

void programs_free(program_map *pm)
{
    free(pm->executables);
    memset(pm, 0, sizeof *pm);
}

static bool executable(const program_map *pm, const char *target)
{
    return pm->nexecutables &&
           bsearch(&target, pm->executables, pm->nexecutables, sizeof *pm->executables,
                   by_text) != NULL;
}

/* Every target of f is an executable (and f has one). */
static bool only_executables(const program_map *pm, const source_file *f)
{
    for (size_t t = 0; t < f->ntargets; t++)
        if (!executable(pm, f->targets[t]))
            return false;
    return f->ntargets > 0;
}

program_relation programs_relate(const program_map *pm, size_t a, size_t b)
{
    const source_file *fa = &pm->snap->files[a], *fb = &pm->snap->files[b];
    if (fa->ntargets && fb->ntargets) {
        /* Both lists are sorted: one merge pass finds a shared target. */
        for (size_t i = 0, j = 0; i < fa->ntargets && j < fb->ntargets;) {
            int c = strcmp(fa->targets[i], fb->targets[j]);
            if (c == 0)
                return PROGRAMS_SHARED;
            c < 0 ? i++ : j++;
        }
        if (only_executables(pm, fa) && only_executables(pm, fb))
            return PROGRAMS_SEPARATE;
    }
    return PROGRAMS_UNKNOWN;
}

bool programs_same(const program_map *pm, size_t a, size_t b)
{
    switch (programs_relate(pm, a, b)) {
    case PROGRAMS_SHARED: return true;
    case PROGRAMS_SEPARATE: return false;
    default: return path_same_program(pm->snap->files[a].path, pm->snap->files[b].path);
    }
}
