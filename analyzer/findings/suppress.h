/* Inline suppressions, in comments:
 *   // gpulint: allow(rule-id[, rule-id...]) -- reason
 *       the finding's line, or the line below the comment
 *   // gpulint: allow-file(rule-id[, ...]) -- reason
 *       anywhere in the file: the whole file
 * Block comments work too. The reason (the rest of the line after `--`) is
 * required; without one, or naming an unknown rule, the suppression is
 * reported as invalid-suppression and suppresses nothing. A valid one that
 * suppressed nothing is reported as unused-suppression. */
#ifndef GPULINT_SUPPRESS_H
#define GPULINT_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "diag/diag.h"
#include "input/source.h"

typedef struct {
    char **ids;
    size_t nids;
    char *reason;         /* NULL when there is no `-- reason` */
    char *malformed;      /* why it could not be read (then ids may be empty), or NULL */
    bool file_wide;       /* allow-file */
    unsigned line, col;   /* of "gpulint:" */
    unsigned last_line;   /* allow: lines [line, last_line] are covered */
} suppression;

/* Every `gpulint: allow...` in the comments of text. Returns the count;
 * *out is malloc'd. */
size_t suppressions_parse(const char *text, size_t len, suppression **out);
void suppressions_free(suppression *s, size_t n);

/* Whether suppression s covers a finding of `rule` at `line`. */
bool suppression_covers(const suppression *s, const char *rule, unsigned line);

/* The suppression stage: a new list (sorted, as diag_sink_take makes them)
 * of the findings in `found` (sorted by file), those a valid suppression
 * covers marked suppressed with its reason, and the invalid-suppression and
 * unused-suppression findings, where the config applies those rules to the
 * file. The meta-rules themselves cannot be suppressed inline (disable them
 * in the config instead). `found` is left as it was. */
diag_list suppressions_apply(const snapshot *snap, const gl_config *cfg, const diag_list *found);

#endif
