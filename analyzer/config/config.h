// .gpulint.yaml, parsed (config/config.c, libyaml). Schema:
//
//   rules:                     # per rule id (also "pattern:<id>")
//     no-cpu-compute:
//       enabled: true
//       severity: error        # error | warning
//       include: ["layer/**"]  # path globs; empty = everything
//       exclude: ["tests/**"]
//   hot: ["tlob_*_forward"]    # function-name globs that are hot, besides the annotation
//   banned-names: ["upload_f32_via_pinned", "clone_to_device_*_via_pinned"]
//   patterns:
//     - id: no-printf          # rule id becomes "pattern:no-printf"
//       regex: 'printf\s*\('   # PCRE2
//       message: "use the logger"
//       severity: warning
//       include: [...]
//       exclude: [...]
//       match-comments: false  # default false: comments masked
//       match-strings: false   # default false: string literals masked
//   include-dirs: ["layer"]    # -I for every file (relative to the config file)
//   defines: ["TLOB_X=1"]      # -D for every file
//   exclude: ["tests/analyzer/fixtures/**"]   # paths not analysed at all
//
// Unknown keys and bad values are errors with the config file's line and
// column (exit 2). Globs: '*' within a path segment, '**' across segments.
#ifndef GPULINT_CONFIG_H
#define GPULINT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include "diag/diag.h"

typedef struct {
    char **items;
    size_t n;
} str_list;

typedef struct {
    char *id;            /* "no-cpu-compute", "pattern:no-printf", ... */
    bool enabled;
    severity sev;        /* SEV_NONE: the registry default */
    str_list include, exclude;
    size_t line, column; /* of its key in the file (1-based), for the check
                            that the rule exists (rules/run_rules.c) */
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
    char *shown_path;    /* how errors name it */
    rule_config *rules;
    size_t nrules;
    pattern_rule *patterns;
    size_t npatterns;
    str_list hot;            /* function-name globs */
    str_list banned_names;   /* identifier globs for no-via-pinned */
    str_list include_dirs;   /* absolute after loading */
    str_list defines;
    str_list exclude;
    char *baseline;          /* `baseline:`, absolute, or NULL: applies in every mode */
} gl_config;

/* --enable/--disable RULE: the rule's `enabled`, over what the file says
 * (its other settings kept; an entry added when the file has none). */
void config_set_enabled(gl_config *cfg, const char *id, bool enabled);

/* true when the rule is enabled for this path (enabled + include/exclude). */
bool config_rule_applies(const gl_config *cfg, const char *rule, const char *path);

/* --- Loading (config/config.c) --- */

/* The defaults: every rule enabled at its registry severity, the banned names
 * of docs/rules.md (no-via-pinned), nothing excluded. */
void config_init_defaults(gl_config *cfg);

/* Load a .gpulint.yaml over the defaults. `shown_path` is how the file is
 * named in errors. Relative paths in it (include-dirs) are relative to the
 * file's directory. Returns 0, or -1 with *error = "FILE:LINE:COL: error:
 * ..." (malloc'd; exit 2). Whether the `rules:` keys name rules that exist
 * is the rules' to say: rules_check_config (rules/run_rules.h). */
int config_load(gl_config *cfg, const char *path, const char *shown_path, char **error);

/* The same from text in memory (the staged .gpulint.yaml of --staged), with
 * relative paths taken from `base_dir`. */
int config_load_text(gl_config *cfg, const char *text, size_t len, const char *shown_path,
                     const char *base_dir, char **error);

void config_free(gl_config *cfg);

/* The `rules:` entry for a rule id, or NULL. */
const rule_config *config_find_rule(const gl_config *cfg, const char *id);

/* The pattern rule with this id (with or without "pattern:"), or NULL. */
const pattern_rule *config_find_pattern(const gl_config *cfg, const char *id);

/* A rule's severity: `rules:` entry, else the pattern's own, else `fallback`
 * (the registry default). */
severity config_severity(const gl_config *cfg, const char *rule, severity fallback);

void str_list_push(str_list *list, const char *s);

#endif
