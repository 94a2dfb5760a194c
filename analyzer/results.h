/* What the rules found in a whole snapshot, kept beside the facts cache
 * (<cache>/results), so that a run where nothing changed neither loads
 * each file's facts nor runs the rules: 40 % of a warm run's CPU time over
 * this repository (facts_load 34 %, the rules 7 %; docs/performance.md).
 *
 * An entry is keyed by the facts cache key of every file of the snapshot
 * (each covers the file's text, path, flags, units and gpulint's own
 * identity: its binary's SHA-256, libclang, CUDA; extract/cache.c), the
 * paths and content of the snapshot's context files and every setting of
 * the config the rules read. It is used only when, besides, each file's
 * facts entry is still fresh (every header its parse read is as it was),
 * and stored only when each one is: the result is then a function of
 * those entries. The stages after the rules (the config's filtering,
 * suppressions, severities, the baseline) run on every run. */
#ifndef GPULINT_RESULTS_H
#define GPULINT_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "diag/diag.h"
#include "input/source.h"

/* The stored result of the rules over snap: true with *found,
 * *files_checked and *unbuilt set (the caller's), else false and nothing
 * set. After facts_global_init with snap. */
bool results_lookup(const snapshot *snap, const gl_config *cfg, diag_list *found,
                    size_t *files_checked, str_list *unbuilt);

/* Keep what the rules found over snap, when every file has fresh facts in
 * the facts cache: those loaded from it this run (from_cache[i]) and those
 * a parse of this run stored there (checked here); a cache that cannot be
 * written is left alone. Entries unused for two weeks go, and the least
 * recently used beyond RESULTS_KEPT. */
void results_store(const snapshot *snap, const gl_config *cfg, const bool *from_cache,
                   const diag_list *found, size_t files_checked, const str_list *unbuilt);

#endif
