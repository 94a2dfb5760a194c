/* Extraction of a whole snapshot with every parse contained: each file whose
 * facts are not cached is parsed in a child process of its own, so a crash
 * or a stack overflow inside libclang (100,000 chained operators, 10,000
 * `else if`) or a parse over its time budget (a macro bomb) costs that file
 * only. The parent is single-threaded while it forks, which is what makes
 * fork() safe here. */
#ifndef GPULINT_CONTAIN_H
#define GPULINT_CONTAIN_H

#include "config/config.h"
#include "facts/facts.h"
#include "input/source.h"
#include "util/progress.h"

/* Fill facts[i] for every file i of the snapshot that `wanted` marks (NULL:
 * every file; the others stay NULL, as a --shard leaves them). A file that was not
 * checked has a not-checked fact saying why (facts/facts.h): its content was
 * not read (source_file.not_checked), its parse crashed (the signal) or ran
 * past cfg->limits.file_seconds. At most `jobs` parses run at once.
 * from_cache[i] (when not NULL) tells whether file i's facts came from
 * the facts cache (else from a parse of this run). With parse_expected, a
 * worker is started, and loads libclang, before the cache is looked in:
 * the load (80 ms of CPU) then runs beside the main process's reading of
 * cached facts instead of after it (a one-file commit); a worker that gets
 * no job is killed. */
void facts_extract_all(const snapshot *snap, const gl_config *cfg, const bool *wanted, int jobs,
                       progress *progress, file_facts **facts, bool *from_cache,
                       bool parse_expected);

#endif
