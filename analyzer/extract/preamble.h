/* Precompiled preambles per include set: files whose leading system
 * includes are the same share one PCH of those headers (on top of the CUDA
 * runtime and cuBLAS the base PCH holds), built on first use and kept in
 * <cache>/pch, bounded in disk use and evicted by age. docs/performance.md
 * has the measurements. */
#ifndef GPULINT_EXTRACT_PREAMBLE_H
#define GPULINT_EXTRACT_PREAMBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "extract/hoist.h"
#include "extract/reach.h"
#include "input/source.h"

/* The system headers a file includes before anything else (after an
 * include guard or #pragma once; with past_defines, after its leading
 * #define and #undef lines too, preamble_leading_defines):
 * "#include <a.h>\n#include <b.h>\n", sorted and once each, or ""
 * (malloc'd). An include that names a snapshot file ends the set: its text
 * may differ from the disk a PCH is checked against.
 *
 * With blocks_end (else NULL), also after conditional blocks that follow
 * those lines (`#if defined(_WIN32) ... #endif`, cuda-samples' files),
 * when each block's own #if, #ifdef and #elif lines test only whether
 * macros are defined (`defined X`, `!`, `&&`, `||`, parentheses, numbers:
 * no macro is expanded, so the value depends on nothing but which macros
 * are defined); *blocks_end gets the offset where the last block's #endif
 * line ends, 0 when there is none. Such a set is right for the file only
 * when no group of the blocks has content that the preprocessor takes,
 * both where the blocks stand in the file and after the set's PCH: the
 * file is D B I R (D its leading defines, B the blocks, I the leading
 * includes, R the rest) and the set holds D I. Read as the file, S0 (the
 * state after the base PCH or none) goes through D and B to I; with the
 * set, I comes first, then B is read again in the state after I, then I
 * again (guarded, as for every set). If B takes nothing in S0, I sees what
 * it saw in the file; if B takes nothing after I either, R sees the state
 * after I in both. The parse checks both with libclang before it uses the
 * set (extract.c, `blocks_inert`), reading D B alone as the file, on the
 * PCH the file would use without the set and on the set's. */
char *preamble_leading_includes(const source_file *src, const snapshot_reach *reach,
                                bool past_defines, size_t *blocks_end);

/* preamble_leading_includes (past_defines) for a C file that does not use
 * the base PCH, going on past the project headers that extract/hoist.h
 * lets it cross; hoist gets what they define and name. */
char *preamble_hoisted_includes(const source_file *src, const snapshot_reach *reach,
                                hoist_info *hoist, size_t *blocks_end);

/* Whether no line of the file's leading blocks (up to blocks_end, from
 * preamble_leading_includes) but their own top-level #if/#elif/#else/#endif
 * lines and blank ones lies outside the skipped line ranges (first and
 * last line of each, as libclang reports them): no group the preprocessor
 * took has content. */
bool preamble_blocks_skipped(const source_file *src, size_t blocks_end,
                             const unsigned (*skipped)[2], size_t nskipped);

/* The one-line #define and #undef lines a file starts with (blank lines and
 * comments aside), verbatim and in order, or "" (malloc'd): a set's PCH
 * for a file that sets a feature-test macro (`#define _GNU_SOURCE`) before
 * its system includes is built with them first, as the file's own
 * preprocessor sees them. */
char *preamble_leading_defines(const source_file *src);

/* The include set each file's parse uses, from what each includes first
 * (leading[i]: preamble_leading_includes' lines, or NULL: no set for that
 * file; files of different groups never share): its own set when another
 * file has the same one; else, for a file alone with its set, the headers
 * it has in common with the set of other files sharing most weight with
 * it (weight(line) of each "#include <h>" line), which then drops the
 * rest; NULL where no other file shares a set. A set may hold fewer
 * headers than the file includes: the file includes the rest itself,
 * after them. The result is n entries, each malloc'd or NULL. */
char **preamble_choose(char *const *leading, const int *group, size_t n,
                       unsigned (*weight)(const char *));

/* Set up <cache_dir>/pch: remove our entries unused for a week, then the
 * least recently used until the total is within the budget
 * (GPULINT_PCH_BUDGET_MB, default 1024). */
void preamble_init(const char *cache_dir);

/* Note that a file of the snapshot would use the PCH of this key: only keys
 * used by two files or more are built (one file alone parses faster than
 * building a PCH and then parsing). Before the workers start. hoisted: the
 * file hoists includes with it, so its build writes hoist_names. */
void preamble_count(unsigned long long key, bool hoisted);

/* The PCH of this key, built from `prelude` with argv on first use (one
 * thread builds, others wait), or NULL when the key is used once or the
 * PCH cannot be built (a header that does not compile on its own). The
 * path stays valid until preamble_cleanup. */
const char *preamble_pch(unsigned long long key, const char *prelude, const char **argv,
                         size_t argc);

/* CPU seconds the calling thread has spent building sets so far: a parse
 * that builds its set counts the build apart from its own parse
 * (GPULINT_TRACE, extract.c parse_unit). */
double preamble_build_cpu(void);

/* Where the PCH of this key is (whether built or not), or NULL without a
 * cache directory (malloc'd): a set chained on another names its path in
 * its flags, and so in its key, before either is built. */
char *preamble_pch_path(unsigned long long key);

/* A PCH libclang refused (a header changed since it was built): removed,
 * so the next run builds it again. */
void preamble_discard(unsigned long long key);

void preamble_cleanup(void);

#endif
