/* .gpulint.yaml, parsed (config.c, libyaml). Schema:
 *
 *   rules:                     # per rule id (also "pattern:<id>")
 *     no-cpu-compute:
 *       enabled: true
 *       severity: error        # error | warning
 *       include: ["layer/**"]  # path globs; empty = everything
 *       exclude: ["tests/**"]
 *   hot: ["tlob_*_forward"]    # function-name globs that are hot, besides the annotation
 *   banned-names: ["upload_f32_via_pinned", "clone_to_device_*_via_pinned"]
 *   patterns:
 *     - id: no-printf          # rule id becomes "pattern:no-printf"
 *       regex: 'printf\s*\('   # PCRE2
 *       message: "use the logger"
 *       severity: warning
 *       include: [...]
 *       exclude: [...]
 *       match-comments: false  # default false: comments masked
 *       match-strings: false   # default false: string literals masked
 *   include-dirs: ["layer"]    # -I for every file (relative to the repo root)
 *   defines: ["TLOB_X=1"]      # -D for every file
 *   exclude: ["tests/analyzer/fixtures/**"]   # paths not analysed at all
 *
 * Unknown keys and bad values are errors with the config file's line and
 * column (exit 2). Globs: '*' within a path segment, '**' across segments.
 */
#ifndef GPULINT_CONFIG_H
#define GPULINT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include "diag.h"

typedef struct {
    char **items;
    size_t n;
} str_list;

typedef struct {
    char *id;            /* "no-cpu-compute", "pattern:no-printf", ... */
    bool enabled;
    severity sev;        /* SEV_NONE: the registry default */
    str_list include, exclude;
} rule_config;

typedef struct {
    char *id;            /* without the "pattern:" prefix */
    char *regex, *message;
    severity sev;
    str_list include, exclude;
    bool match_comments, match_strings;
} pattern_rule;

typedef struct {
    char *path;          /* the config file, or NULL for defaults */
    rule_config *rules;
    size_t nrules;
    pattern_rule *patterns;
    size_t npatterns;
    str_list hot;            /* function-name globs */
    str_list banned_names;   /* identifier globs for no-via-pinned */
    str_list include_dirs;   /* absolute after loading */
    str_list defines;
    str_list exclude;
} gl_config;

/* true when the rule is enabled for this path (enabled + include/exclude). */
bool config_rule_applies(const gl_config *cfg, const char *rule, const char *path);

/* Glob match of a whole string ('*' no '/', '**' any, '?' one char). */
bool glob_match(const char *pattern, const char *s);

#endif
