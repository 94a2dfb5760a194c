/* The one diagnostic sink. Every finding, of every rule and of the
 * suppression stage, is recorded through diag_report(); diag_sink_take()
 * hands what a sink collected on as a sorted list, which the later stages
 * (pipeline.c: suppressions, severities, the baseline) read to build new
 * lists and the reporters only read. */
#ifndef GPULINT_DIAG_H
#define GPULINT_DIAG_H

#include <stdarg.h>

typedef enum { SEV_NONE = 0, SEV_WARNING, SEV_ERROR } severity;

typedef struct diag_sink diag_sink;

/* Record a finding of rule `rule` at file:line:col (1-based; the expansion
 * site when a macro is involved). `file` is a snapshot path. The severity is
 * set later, by the pipeline (config, else registry default). Thread-safe. */
void diag_report(diag_sink *sink, const char *rule, const char *file,
                 unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

void diag_vreport(diag_sink *sink, const char *rule, const char *file,
                  unsigned line, unsigned col, const char *fmt, va_list ap);

/* Meta-rule ids (rows in the registry, reported by findings/suppress.c):
 *   invalid-suppression  `gpulint: allow(...)` without a `-- reason`, or naming
 *                        an unknown rule (warning; it suppresses nothing)
 *   unused-suppression   a suppression that suppressed nothing (warning) */

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *rule, *file, *message;
    unsigned line, col;
    severity sev;             /* set by the pipeline from the config / registry */
    bool suppressed;          /* kept (SARIF reports them), not printed as findings */
    char *suppress_reason;    /* the suppression's `-- reason` when suppressed */
    bool in_baseline;         /* matched an entry of --baseline: known, not new */
} diag_finding;

/* Whether a finding is printed as a finding and counts for the exit status. */
static inline bool finding_is_reported(const diag_finding *f)
{
    return !f->suppressed && !f->in_baseline;
}

/* Findings owned by whoever holds the list: what a sink collected, handed
 * from one stage of the pipeline to the next (each stage reads one list and
 * builds a new one). */
typedef struct {
    diag_finding *items;
    size_t n;
} diag_list;

void diag_list_free(diag_list *list);

/* Free what one finding holds (a stage that drops it from its list). */
void diag_finding_free(diag_finding *f);

diag_sink *diag_sink_new(void);
void diag_sink_free(diag_sink *sink);

/* Record a copy of f, its marks (severity, suppression, baseline) included:
 * for a stage that passes a finding of its input list on. */
void diag_add_copy(diag_sink *sink, const diag_finding *f);

/* Everything the sink collected, sorted by file, line, column, rule and
 * message, exact duplicates dropped (a header parsed with several
 * translation units reports the same finding more than once), so the list
 * is the same whatever the -j. The sink is left empty. Not thread-safe:
 * call after the workers. */
diag_list diag_sink_take(diag_sink *sink);

#endif
