/* Baselines: adopt gpulint on code with existing findings, then fail only on
 * new ones. `--write-baseline FILE` records the reported findings;
 * `--baseline FILE` marks the findings it still matches as known
 * (in_baseline: not printed, not failing) and lists the entries nothing
 * matched any more as fixed. Matching uses findings/fingerprint.h's keys (rule, file,
 * normalised source line), counted, so moving code or adding lines above a
 * finding does not make it new, and a second identical finding is new. */
#ifndef GPULINT_BASELINE_H
#define GPULINT_BASELINE_H

#include <stddef.h>

#include "diag/diag.h"
#include "input/source.h"

/* A baseline entry that no current finding matched: the finding is gone. */
typedef struct {
    char *rule, *file, *message;
    unsigned line;   /* where it was when the baseline was written */
} baseline_fixed;

/* Write every unsuppressed finding to path (JSON), those an older baseline
 * matched included. Returns 0, or -1 with *error. */
int baseline_write(const char *path, const snapshot *snap, const diag_finding *fs, size_t n,
                   char **error);

/* The baseline stage: load path and make *marked, the findings of `found`
 * (sorted) with the reported ones it matches marked in_baseline. The entries
 * no finding matched go to *fixed (malloc'd, *nfixed of them, sorted by
 * file, line, rule and message). `found` is left as it was. Returns 0, or -1
 * with *error (unreadable or malformed file) and nothing made. */
int baseline_apply(const char *path, const snapshot *snap, const diag_list *found,
                   diag_list *marked, baseline_fixed **fixed, size_t *nfixed, char **error);

/* The same from text in memory (a baseline read from the index, for
 * --staged); `shown` names it in errors. */
int baseline_apply_text(const char *shown, const char *text, size_t len, const snapshot *snap,
                        const diag_list *found, diag_list *marked, baseline_fixed **fixed,
                        size_t *nfixed, char **error);

void baseline_fixed_free(baseline_fixed *fixed, size_t n);

#endif
