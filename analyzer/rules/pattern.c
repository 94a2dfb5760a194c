/* pattern:<id>: the config's regex rules. Each regex is compiled and
 * JIT-compiled once per run and matched over the masked text of every file
 * the rule applies to. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "input/mask.h"
#include "rules/rule.h"
#include "util/xalloc.h"

/* The text a pattern sees: comments and strings blanked unless it asks for
 * them. Returns f->masked itself when both are blanked, else a new buffer. */
static char *text_for(const source_file *f, const pattern_rule *p)
{
    unsigned what = (p->match_comments ? 0 : MASK_COMMENTS) | (p->match_strings ? 0 : MASK_STRINGS);
    if (what == (MASK_COMMENTS | MASK_STRINGS))
        return f->masked;
    char *out = xmalloc(f->len + 1);
    mask_text(f->text, f->len, what, out);
    return out;
}

/* A match that hits PCRE2's match or depth limit is neither a match nor a
 * no-match: the rest of the file is unknown to this rule. That is reported
 * as not-checked (an error unless the config lowers not-checked itself),
 * never at the pattern's own severity: a warning pattern that could not
 * look must still fail the run (rules/not_checked.c). The finding is where
 * the search stopped and names the pattern and the limit to raise. */
static void report_limit(const source_file *f, const pattern_rule *p, int rc, PCRE2_SIZE start,
                         const gl_limits *lim, diag_sink *sink)
{
    unsigned line, col;
    source_line_col(f, start, &line, &col);
    bool depth = rc == PCRE2_ERROR_DEPTHLIMIT;
    PCRE2_UCHAR why[128];
    pcre2_get_error_message(rc, why, sizeof why);
    diag_report(sink, "not-checked", f->path, line, col,
                "not checked by pattern:%s from here on: %s (limits: %s: %u in "
                ".gpulint.yaml raises it, or make the regex cheaper)",
                p->id, (char *)why, depth ? "regex-depth-limit" : "regex-match-limit",
                depth ? lim->regex_depth_limit : lim->regex_match_limit);
}

static void match_file(const source_file *f, const pattern_rule *p, const char *rule_id,
                       pcre2_code *re, pcre2_match_data *md, pcre2_match_context *mc,
                       const gl_limits *lim, diag_sink *sink)
{
    char *text = text_for(f, p);
    PCRE2_SIZE start = 0;
    unsigned line = 1;
    size_t line_start = 0, scanned = 0;
    while (start <= f->len) {
        int rc = pcre2_match(re, (PCRE2_SPTR)text, f->len, start, 0, md, mc);
        if (rc == PCRE2_ERROR_NOMATCH)
            break;
        if (rc < 0) {
            report_limit(f, p, rc, start, lim, sink);
            break;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        for (; scanned < ov[0]; scanned++)
            if (f->text[scanned] == '\n') {
                line++;
                line_start = scanned + 1;
            }
        diag_report(sink, rule_id, f->path, line, (unsigned)(ov[0] - line_start) + 1, "%s",
                    p->message);
        /* An empty match must still move on. */
        start = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
    }
    if (text != f->masked)
        free(text);
}

static void check_patterns(const analysis *a, diag_sink *sink)
{
    for (size_t k = 0; k < a->cfg->npatterns; k++) {
        const pattern_rule *p = &a->cfg->patterns[k];
        char *rule_id = xasprintf("pattern:%s", p->id);
        int code;
        PCRE2_SIZE offset;
        /* Validated when the config was loaded. */
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)p->regex, PCRE2_ZERO_TERMINATED,
                                       PCRE2_MULTILINE, &code, &offset, NULL);
        if (!re) {
            free(rule_id);
            continue;
        }
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);   /* falls back to the interpreter */
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
        pcre2_match_context *mc = pcre2_match_context_create(NULL);
        pcre2_set_match_limit(mc, a->cfg->limits.regex_match_limit);
        pcre2_set_depth_limit(mc, a->cfg->limits.regex_depth_limit);
        for (size_t i = 0; i < a->snap->nfiles; i++) {
            const source_file *f = &a->snap->files[i];
            if (config_rule_applies(a->cfg, rule_id, f->path))
                match_file(f, p, rule_id, re, md, mc, &a->cfg->limits, sink);
        }
        pcre2_match_context_free(mc);
        pcre2_match_data_free(md);
        pcre2_code_free(re);
        free(rule_id);
    }
}

const rule_def rule_pattern = {
    .id = "pattern",
    .default_severity = SEV_ERROR,
    .summary = "your own regex rules from .gpulint.yaml (PCRE2, over code)",
    .explain =
        "What it forbids: whatever a `patterns:` entry of .gpulint.yaml says: a PCRE2\n"
        "regex matched over each file's code, with comments and string literals\n"
        "blanked (match-comments / match-strings: true to see them). Each match is a\n"
        "finding of rule `pattern:<id>` with the entry's message and severity\n"
        "(default error), in the files its include/exclude globs select. A file\n"
        "where the regex hits PCRE2's match or depth limit (limits: regex-match-limit,\n"
        "regex-depth-limit) is reported as not-checked, an error whatever the\n"
        "pattern's severity: the rest of that file was not searched.\n"
        "\n"
        "Why: project conventions that need no parser (a banned call, a logging\n"
        "habit) are cheaper to state as a regex than as a new rule.\n"
        "\n"
        "Example (.gpulint.yaml):\n"
        "    patterns:\n"
        "      - id: no-printf\n"
        "        regex: '\\bprintf\\s*\\('\n"
        "        message: \"use the logger, not printf\"\n"
        "        severity: warning\n"
        "        include: [\"layer/**\"]\n"
        "Bad:   printf(\"loss %f\\n\", loss);\n"
        "Good:  log_info(\"loss %f\", loss);\n"
        "\n"
        "Suppress: // gpulint: allow(pattern:no-printf) -- why this one is fine\n",
    .check = check_patterns,
};
