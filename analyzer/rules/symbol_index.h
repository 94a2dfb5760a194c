/* The function definitions of a snapshot, indexed for the rules that follow
 * a use in one file to a definition in another (kernel-signature,
 * no-cpu-compute). Each rule picks the definitions its index holds. Two
 * lookups, one per way a use names its function:
 *  - by USR, what the compiler resolved a call to: symbol_index_resolve
 *    gives the one definition the use means;
 *  - by name, what a declaration or launch spells: symbol_index_candidates
 *    gives every definition it may mean.
 * Linkage: a static definition is seen by name from its own file only; a
 * USR already names the file of an internal-linkage symbol, except one
 * defined in a header, which every file including it shares. */
#ifndef GPULINT_SYMBOL_INDEX_H
#define GPULINT_SYMBOL_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"
#include "rules/programs.h"
#include "rules/rule.h"

typedef struct {
    const fact_function *fn;
    size_t file;    /* its file: an index into the snapshot's files and facts */
    size_t order;   /* its place in the snapshot (file, then position): ties
                       in both sort orders keep it */
} symbol_def;

typedef struct {
    const snapshot *snap;
    symbol_def *defs;   /* sorted by USR, then snapshot order */
    size_t n;
    const symbol_def **by_name;   /* the same, by name, then snapshot order */
    program_map programs;         /* which files link together */
} symbol_index;

typedef struct {
    const symbol_def **items;
    size_t n;
} symbol_list;

/* Index the definitions of the analysis for which `wanted` is true. */
void symbol_index_build(symbol_index *idx, const analysis *a,
                        bool (*wanted)(const fact_function *fn));
void symbol_index_free(symbol_index *idx);

/* The definitions with this USR: defs[*first, *first + count). */
size_t symbol_index_usr(const symbol_index *idx, const char *usr, size_t *first);

/* The definition with this USR that a use in file `file` means, as an index
 * into defs, or -1. The same external symbol defined in two files is two
 * programs (two mains, two `prepare`s): the use's own file's, else one of
 * a target that builds the use's file too, else the one whose path shares
 * most with the use's; never one of another executable target
 * (rules/programs.h). */
long symbol_index_resolve(const symbol_index *idx, const char *usr, size_t file);

/* The definitions named `name` that a use in file `file` can refer to, in
 * snapshot order: the ones in that file when there are any (its compiler
 * resolved the use to them), else every non-static one. Free items. */
symbol_list symbol_index_candidates(const symbol_index *idx, const char *name, size_t file);

#endif
