/* The one diagnostic sink. Every finding of every rule goes through
 * diag_report(); suppression, severity from the config, ordering and the
 * reporters (text, json, ...) all work on what the sink collected. */
#ifndef GPULINT_DIAG_H
#define GPULINT_DIAG_H

#include <stdarg.h>

typedef enum { SEV_NONE = 0, SEV_WARNING, SEV_ERROR } severity;

typedef struct diag_sink diag_sink;

/* Record a finding of rule `rule` at file:line:col (1-based; the expansion
 * site when a macro is involved). `file` is a snapshot path. The severity is
 * the rule's (config, else registry default). Thread-safe. */
void diag_report(diag_sink *sink, const char *rule, const char *file,
                 unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

void diag_vreport(diag_sink *sink, const char *rule, const char *file,
                  unsigned line, unsigned col, const char *fmt, va_list ap);

/* Meta-rule ids (rows in the registry, reported by the driver):
 *   parse-error          compiler errors in a file (warning; the rules still run)
 *   invalid-suppression  `gpulint: allow(...)` without a `-- reason`, or naming
 *                        an unknown rule (warning; it suppresses nothing)
 *   unused-suppression   a suppression that suppressed nothing (warning) */

/* What the sink collected, for the driver's later stages and the reporters. */
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *rule, *file, *message;
    unsigned line, col;
    severity sev;             /* set by the driver from the config / registry */
    bool suppressed;          /* kept (SARIF reports them), not printed as findings */
    char *suppress_reason;    /* the suppression's `-- reason` when suppressed */
    bool in_baseline;         /* matched an entry of --baseline: known, not new */
} diag_finding;

/* Whether a finding is printed as a finding and counts for the exit status. */
static inline bool finding_is_reported(const diag_finding *f)
{
    return !f->suppressed && !f->in_baseline;
}

diag_sink *diag_sink_new(void);
void diag_sink_free(diag_sink *sink);

/* The findings so far; the array stays owned by the sink and is valid until the
 * next diag_report or diag_sink_free. Not thread-safe: call after the workers. */
diag_finding *diag_findings(diag_sink *sink, size_t *count);

/* Drop the findings for which keep() is false (config filtering). */
void diag_filter(diag_sink *sink, bool (*keep)(const diag_finding *f, void *ctx), void *ctx);

/* Sort by file, line, column, rule, message and drop exact duplicates (a
 * header parsed with several translation units reports the same finding
 * more than once): the output is the same whatever the -j. */
void diag_sort_unique(diag_sink *sink);

#endif
