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

#endif
