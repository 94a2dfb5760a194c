/* A rule: one file under analyzer/rules/, one row in the registry table
 * (rules/registry.c). Rules run after extraction, over the facts of the whole
 * snapshot; file-local rules just look at one file's facts at a time. */
#ifndef GPULINT_RULE_H
#define GPULINT_RULE_H

#include "config/config.h"
#include "diag/diag.h"
#include "input/source.h"

struct file_facts;   /* facts/facts.h: what extraction found in one file */

typedef struct {
    const snapshot *snap;
    struct file_facts **facts;   /* facts[i] belongs to snap->files[i]; never NULL */
    const gl_config *cfg;
} analysis;

typedef struct {
    const char *id;          /* contract: the rule table of docs/rules.md */
    severity default_severity;
    const char *summary;     /* one line, for --list-rules */
    const char *explain;     /* --explain: what it forbids, why, bad and good
                                example, how to suppress */
    /* Report findings through the sink. NULL for the suppression meta-rules,
     * which the suppression stage reports (findings/suppress.c). The
     * pipeline drops findings for files where config_rule_applies() is
     * false. */
    void (*check)(const analysis *a, diag_sink *sink);
} rule_def;

/* Each rule file defines its row; rules/registry.c lists them, in --list-rules order. */
extern const rule_def *const rule_registry[];
extern const size_t rule_registry_len;

const rule_def *rule_find(const char *id);

/* The path a finding shows for a file extraction names by its absolute
 * path: the snapshot file's own path when it is one, else relative to the
 * repository root (the current directory outside git) when below it (a
 * pointer into abs); NULL for a file
 * outside the repository (the toolkit's headers, a vendor directory given
 * by -I). rules/shown_path.c. */
const char *shown_path(const snapshot *snap, const char *abs);

/* What a finding's message ends with when its fact comes from a macro's
 * body (a fact's macro_site, "absolute path:line", facts/fact_kinds.def):
 * every expansion is reported where it is used, and this names the places
 * whose change mends them all. A body outside the repository names no such
 * place and adds nothing (shown_path). Facts that are the same finding but
 * for the body line (one use of a cleanup macro that drops five statuses)
 * are one finding naming every line, as they were one before lines were
 * named: add each fact's site, then take the note (rules/macro_site.c). */
typedef struct {
    const snapshot *snap;
    char **sites;   /* "path:line" as shown, distinct, in the order added */
    size_t n;
} macro_sites;
void macro_sites_add(macro_sites *s, const char *site);   /* NULL: nothing */
char *macro_sites_note(const macro_sites *s);   /* "" for none; free it */
void macro_sites_free(macro_sites *s);

#endif
