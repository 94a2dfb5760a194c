/* The rules of one run: the registry's rows (rules/registry.c) with the
 * config's patterns in place of the `pattern` row, built once for everything
 * that lists them (--list-rules, --explain, SARIF's tool.driver.rules), and
 * the check that the config names only rules that exist. */
#ifndef GPULINT_RUN_RULES_H
#define GPULINT_RUN_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "diag/diag.h"
#include "rules/rule.h"

typedef struct {
    char *id;                     /* as findings carry it: "no-cpu-compute",
                                     "pattern:no-printf"; "pattern:<id>" for
                                     the family row */
    const rule_def *def;          /* its registry row (rule_pattern for patterns) */
    const pattern_rule *pattern;  /* the configured pattern, or NULL */
    const char *summary;          /* the row's summary, or the pattern's message */
    severity sev;                 /* in this run: the config's, else the default */
    bool family;                  /* the "pattern:<id>" row standing for every
                                     pattern: listed, never reported */
} run_rule;

typedef struct {
    run_rule *items;   /* registry order; a pattern family row, then its patterns */
    size_t n;
} run_rule_list;

run_rule_list run_rules_build(const gl_config *cfg);
void run_rules_free(run_rule_list *list);

/* The rule --explain means by `id`: a listed id, with "pattern" for the
 * family row too. NULL when the run has no such rule. */
const run_rule *run_rules_find(const run_rule_list *list, const char *id);

/* Whether `id` names a rule of this run: a registry row, or "pattern:<id>" of
 * a pattern the config defines. */
bool rule_is_known(const gl_config *cfg, const char *id);

/* Every `rules:` key of a loaded config names a known rule. Returns 0, or -1
 * with *error = "FILE:LINE:COL: error: unknown rule ..." (malloc'd; exit 2).
 * Checked after loading, since a `pattern:<id>` key may come before its
 * pattern in the file. */
int rules_check_config(const gl_config *cfg, char **error);

#endif
