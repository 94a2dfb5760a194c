/* SARIF 2.1.0, the format GitHub code scanning, Azure DevOps (GHAzDO) and
 * most CI dashboards take: one run; tool.driver.rules lists every rule of
 * this run (the registry's, and each configured pattern) with its help from
 * the one source of rule docs (--explain); results carry GitHub's
 * primaryLocationLineHash (report/line_hash.c) beside our own fingerprint.
 *
 * Code scanning ignores `suppressions` and baselineState: whatever is a
 * result is an open alert. So by default (the file to upload) the results
 * are only the findings that are reported; with report_input.sarif_full
 * also the suppressed ones (with their justification), the baseline's known
 * ones and its fixed ("absent") ones, for audits. Every result carries
 * `suppressions`, empty or not.
 *
 * GitHub accepts at most 25,000 results per run: results are ordered errors
 * first, then by rule and location, and the cut is said in a
 * toolExecutionNotification, with what it cut. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "findings/fingerprint.h"
#include "report/line_hash.h"
#include "util/exit_codes.h"
#include "util/json_text.h"
#include "report/report.h"
#include "rules/run_rules.h"
#include "version.h"
#include "util/xalloc.h"

enum { SARIF_MAX_RESULTS = 25000 };

/* Percent-encode everything but unreserved characters and '/', so paths with
 * spaces, '#' or non-ASCII bytes are valid URI references. */
static char *uri_escape(const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    byte_buf b = {0};
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            buf_append(&b, p, 1);
        } else {
            char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            buf_append(&b, esc, 3);
        }
    }
    if (!b.data)
        buf_append(&b, "", 0);
    return b.data;
}

/* A link to a document of the analysed repository, only where it exists:
 * on GitHub at the analysed commit (in Actions) when the snapshot holds the
 * file; NULL elsewhere (a file:// link or another repository's page would
 * be dead wherever the SARIF is looked at). */
static char *doc_uri(const report_input *in, const char *doc, const char *anchor)
{
    const char *server = getenv("GITHUB_SERVER_URL"), *repo = getenv("GITHUB_REPOSITORY"),
               *sha = getenv("GITHUB_SHA");
    if (!server || !repo || !sha || !*server || !*repo || !*sha || snapshot_find(in->snap, doc) < 0)
        return NULL;
    return xasprintf("%s/%s/blob/%s/%s%s%s", server, repo, sha, doc, anchor ? "#" : "",
                     anchor ? anchor : "");
}

static char *help_uri(const report_input *in, const char *rule_id)
{
    /* GitHub's anchor of the heading "pattern:<id>" drops the punctuation. */
    return doc_uri(in, "docs/rules.md",
                   strncmp(rule_id, "pattern:", 8) == 0 ? "patternid" : rule_id);
}

/* GitHub and Azure DevOps show at most 1,024 characters of a description:
 * cut at the last sentence that fits, else at a word, marked with "...". */
enum { SARIF_MAX_DESCRIPTION = 1024 };
static char *fit_description(char *text)
{
    size_t n = strlen(text);
    if (n <= SARIF_MAX_DESCRIPTION)
        return text;
    size_t cut = 0;
    for (size_t i = 0; i + 1 < SARIF_MAX_DESCRIPTION; i++)
        if (text[i] == '.' && (text[i + 1] == ' ' || text[i + 1] == '\n'))
            cut = i + 1;
    if (cut == 0) {
        cut = SARIF_MAX_DESCRIPTION - 3;
        while (cut > 0 && text[cut] != ' ')
            cut--;
        memcpy(text + cut, "...", 4);
        return text;
    }
    text[cut] = '\0';
    return text;
}

/* The --explain text as Markdown: the text itself is plain text laid out
 * for a terminal (indented examples, hand-made lists), so it is shown as is,
 * in a fence long enough that no run of backquotes in it closes it. */
static char *explain_markdown(const char *explain)
{
    size_t longest = 0, run = 0;
    for (const char *p = explain; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fence_len = longest < 3 ? 3 : longest + 1;
    char *fence = xmalloc(fence_len + 1);
    memset(fence, '`', fence_len);
    fence[fence_len] = '\0';
    size_t n = strlen(explain);
    char *md = xasprintf("%stext\n%s%s%s\n", fence, explain,
                         n && explain[n - 1] == '\n' ? "" : "\n", fence);
    free(fence);
    return md;
}

/* reportingDescriptor.name: the id in PascalCase (no-via-pinned:
 * NoViaPinned), the friendly name the validators ask for. */
static char *friendly_name(const char *id)
{
    char *name = xmalloc(strlen(id) + 1);
    size_t n = 0;
    bool upper = true;
    for (const char *p = id; *p; p++) {
        bool alnum = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
        if (!alnum) {
            upper = true;
            continue;
        }
        name[n++] = upper && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
        upper = false;
    }
    name[n] = '\0';
    return name;
}

/* properties.tags and precision per rule (GitHub shows tags as filters and
 * ranks alerts by precision): how sure each rule is of what it reports. */
static const struct {
    const char *id, *tags, *precision;
} rule_kinds[] = {
    {"no-via-pinned", "performance,gpu", "very-high"},
    {"mapped-pinned-only", "performance,gpu", "high"},
    {"no-cpu-compute", "performance,gpu", "high"},
    {"kernel-signature", "correctness,gpu", "high"},
    {"doc-params", "maintainability,documentation", "very-high"},
    {"unchecked-status", "correctness,gpu", "high"},
    {"parse-error", "analysis", "medium"},
    {"not-checked", "analysis", "very-high"},
    {"invalid-suppression", "suppression", "very-high"},
    {"unused-suppression", "suppression", "very-high"},
};

static json_t *rule_properties(const char *id, severity sev)
{
    const char *tags = "pattern", *precision = "high";   /* pattern:<id> */
    for (size_t i = 0; i < sizeof rule_kinds / sizeof rule_kinds[0]; i++)
        if (strcmp(rule_kinds[i].id, id) == 0) {
            tags = rule_kinds[i].tags;
            precision = rule_kinds[i].precision;
        }
    json_t *list = json_array();
    for (const char *t = tags; *t;) {
        size_t n = strcspn(t, ",");
        json_array_append_new(list, json_stringn(t, n));
        t += n + (t[n] == ',');
    }
    return json_pack("{s:o, s:s, s:s}", "tags", list, "precision", precision, "problem.severity",
                     sev == SEV_ERROR ? "error" : "warning");
}

/* The explanation's first paragraph. */
static char *first_paragraph(const char *text)
{
    const char *end = strstr(text, "\n\n");
    size_t n = end ? (size_t)(end - text) : strlen(text);
    while (n && text[n - 1] == '\n')
        n--;
    return xstrndup(text, n);
}

static const char *level(severity sev)
{
    return sev == SEV_ERROR ? "error" : "warning";
}

static json_t *rule_descriptor(const report_input *in, const char *id, const char *summary,
                               const char *explain, severity sev)
{
    char *full = fit_description(first_paragraph(explain));
    char *short_text = fit_description(xstrdup(summary));
    char *uri = help_uri(in, id);
    char *markdown = explain_markdown(explain);
    char *name = friendly_name(id);
    json_t *r = json_pack("{s:o, s:o, s:{s:o}, s:{s:o}, s:{s:o, s:o}, s:{s:s}, s:o}", "id",
                          json_text(id), "name", json_text(name), "shortDescription", "text",
                          json_text(short_text), "fullDescription", "text", json_text(full), "help",
                          "text", json_text(explain), "markdown", json_text(markdown),
                          "defaultConfiguration", "level", level(sev), "properties",
                          rule_properties(id, sev));
    if (uri)
        json_object_set_new(r, "helpUri", json_text(uri));
    free(full);
    free(short_text);
    free(uri);
    free(markdown);
    free(name);
    return r;
}

/* tool.driver.rules: every rule of the run a finding can carry, in
 * `reported` (for ruleIndex) in the same order. */
static json_t *rule_descriptors(const report_input *in, const run_rule_list *rules,
                                const run_rule ***reported, size_t *nreported)
{
    json_t *descriptors = json_array();
    *reported = xcalloc(rules->n ? rules->n : 1, sizeof **reported);
    *nreported = 0;
    for (size_t i = 0; i < rules->n; i++) {
        const run_rule *r = &rules->items[i];
        if (r->family)
            continue;
        char *summary = r->pattern ? xasprintf("%s (regex: %s)", r->pattern->message,
                                               r->pattern->regex)
                                   : xstrdup(r->summary);
        json_array_append_new(descriptors,
                              rule_descriptor(in, r->id, summary, r->def->explain, r->sev));
        free(summary);
        (*reported)[(*nreported)++] = r;
    }
    return descriptors;
}

static json_t *artifact_location(const report_input *in, const char *file)
{
    char *uri = uri_escape(file);
    json_t *loc;
    if (file[0] == '/') {
        char *abs_uri = xasprintf("file://%s", uri);
        loc = json_pack("{s:o}", "uri", json_text(abs_uri));
        free(abs_uri);
    } else if (in->snap->root) {
        loc = json_pack("{s:o, s:s}", "uri", json_text(uri), "uriBaseId", "SRCROOT");
    } else {
        loc = json_pack("{s:o}", "uri", json_text(uri));
    }
    free(uri);
    return loc;
}

/* SARIF counts columns in UTF-16 code units (its default columnKind); gpulint
 * counts bytes. Convert with the line's text: a 4-byte UTF-8 sequence is two
 * units, any other sequence (or stray byte) one. */
static unsigned utf16_units(const char *line, size_t bytes)
{
    unsigned units = 0;
    for (size_t i = 0; i < bytes; i++) {
        unsigned char c = (unsigned char)line[i];
        if ((c & 0xC0) == 0x80)
            continue;   /* a continuation byte: counted with its lead */
        units += (c & 0xF8) == 0xF0 ? 2 : 1;
    }
    return units;
}

static bool is_word_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* startLine/startColumn/endLine/endColumn: the word at the finding's column
 * (an identifier, a number; else one character); the whole line when the
 * finding has no column. */
static json_t *region(const report_input *in, const char *file, unsigned line_no, unsigned col)
{
    unsigned line_no1 = line_no ? line_no : 1;
    long idx = snapshot_find(in->snap, file);
    const char *line = NULL;
    size_t len = 0;
    if (idx < 0 || !source_line_text(&in->snap->files[idx], line_no1, &line, &len))
        line = NULL;
    unsigned start, end;
    if (!line) {
        start = col ? col : 1;
        end = start + 1;
    } else if (!col) {
        start = 1;
        end = utf16_units(line, len) + 1;
    } else {
        size_t from = col - 1 < len ? col - 1 : len, to = from;
        while (to < len && is_word_byte(line[to]))
            to++;
        if (to == from && to < len) {
            to++;
            while (to < len && ((unsigned char)line[to] & 0xC0) == 0x80)
                to++;   /* the rest of a multi-byte character */
        }
        start = utf16_units(line, from) + 1 + (unsigned)(col - 1 - from);
        end = start + utf16_units(line + from, to - from) + (to == from);
    }
    return json_pack("{s:I, s:I, s:I, s:I}", "startLine", (json_int_t)line_no1, "startColumn",
                     (json_int_t)start, "endLine", (json_int_t)line_no1, "endColumn",
                     (json_int_t)end);
}

/* primaryLocationLineHash of file:line, from the hashes of each snapshot
 * file with results, computed once per file (results are not in file order). */
typedef struct {
    char **hashes;   /* NULL: not computed yet */
    size_t nlines;
} file_line_hashes;

static const char *line_hash_of(file_line_hashes *cache, const report_input *in,
                                const char *file, unsigned line)
{
    long idx = snapshot_find(in->snap, file);
    if (idx < 0)
        return NULL;
    file_line_hashes *c = &cache[idx];
    if (!c->hashes) {
        const source_file *src = &in->snap->files[idx];
        c->hashes = line_hashes(src->text, src->len, &c->nlines);
    }
    unsigned l = line ? line : 1;
    return l <= c->nlines ? c->hashes[l - 1] : NULL;
}

static json_t *result(const report_input *in, const diag_finding *d, long rule_index,
                      const char *fingerprint, file_line_hashes *hashes)
{
    json_t *fingerprints = json_pack("{s:s}", "gpulint/v1", fingerprint);
    const char *line_hash = line_hash_of(hashes, in, d->file, d->line);
    if (line_hash)
        json_object_set_new(fingerprints, "primaryLocationLineHash", json_string(line_hash));
    json_t *r = json_pack("{s:o, s:s, s:{s:o}, s:[{s:{s:o, s:o}}], s:o}", "ruleId",
                          json_text(d->rule), "level", level(d->sev), "message", "text",
                          json_text(d->message), "locations", "physicalLocation",
                          "artifactLocation", artifact_location(in, d->file), "region",
                          region(in, d->file, d->line, d->col), "partialFingerprints",
                          fingerprints);
    if (rule_index >= 0)
        json_object_set_new(r, "ruleIndex", json_integer(rule_index));
    if (in->baseline_active)
        json_object_set_new(r, "baselineState", json_string(d->in_baseline ? "unchanged" : "new"));
    json_object_set_new(r, "suppressions",
                        d->suppressed
                            ? json_pack("[{s:s, s:o}]", "kind", "inSource", "justification",
                                        json_text(d->suppress_reason ? d->suppress_reason : ""))
                            : json_array());
    return r;
}

typedef struct {
    char key[65];
    size_t index;
} keyed_finding;

static int compare_keyed(const void *pa, const void *pb)
{
    const keyed_finding *a = pa, *b = pb;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* "<key>:<n>": the n-th finding (0-based, in output order) with this key, so
 * two identical lines with the same finding keep distinct fingerprints.
 * Sorting by (key, index) numbers the occurrences in O(n log n). */
static char **fingerprints(const report_input *in)
{
    size_t n = in->nfindings;
    keyed_finding *k = xcalloc(n ? n : 1, sizeof *k);
    char **out = xcalloc(n ? n : 1, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        finding_key(in->snap, &in->findings[i], k[i].key);
        k[i].index = i;
    }
    qsort(k, n, sizeof *k, compare_keyed);
    unsigned occurrence = 0;
    for (size_t i = 0; i < n; i++) {
        occurrence = i > 0 && strcmp(k[i].key, k[i - 1].key) == 0 ? occurrence + 1 : 0;
        out[k[i].index] = xasprintf("%s:%u", k[i].key, occurrence);
    }
    free(k);
    return out;
}

/* run.automationDetails: the category code scanning keeps this tool's
 * alerts under ("gpulint/"); in an Azure DevOps pipeline (TF_BUILD), the id
 * and properties GHAzDO requires, from the pipeline's variables. */
static json_t *automation_details(void)
{
    static const char *const ado[][2] = {
        {"SYSTEM_DEFINITIONID", "azuredevops/pipeline/build/buildDefinitionId"},
        {"BUILD_DEFINITIONNAME", "azuredevops/pipeline/build/buildDefinitionName"},
        {"SYSTEM_PHASEID", "azuredevops/pipeline/build/phaseId"},
        {"SYSTEM_PHASENAME", "azuredevops/pipeline/build/phaseName"},
    };
    const char *tf_build = getenv("TF_BUILD");
    if (!tf_build || strcasecmp(tf_build, "true") != 0)
        return json_pack("{s:s}", "id", "gpulint/");
    json_t *props = json_object();
    for (size_t i = 0; i < sizeof ado / sizeof ado[0]; i++) {
        const char *v = getenv(ado[i][0]);
        json_object_set_new(props, ado[i][1], json_text(v ? v : ""));
    }
    const char *definition = getenv("SYSTEM_DEFINITIONID");
    char *id = xasprintf("azuredevops/pipeline/build/%s/gpulint/", definition ? definition : "");
    json_t *details = json_pack("{s:o, s:o}", "id", json_text(id), "properties", props);
    free(id);
    return details;
}

/* One result to write: a finding (index into in->findings) or, with
 * fixed set, a baseline entry that is gone. */
typedef struct {
    const report_input *in;
    size_t index;
    bool fixed;
} sarif_item;

static int level_rank(const sarif_item *it)
{
    if (it->fixed)
        return 2;   /* "none": a note for audits */
    return it->in->findings[it->index].sev == SEV_ERROR ? 0 : 1;
}

static void item_place(const sarif_item *it, const char **rule, const char **file, unsigned *line,
                       unsigned *col)
{
    if (it->fixed) {
        const baseline_fixed *f = &it->in->fixed[it->index];
        *rule = f->rule, *file = f->file, *line = f->line, *col = 0;
    } else {
        const diag_finding *d = &it->in->findings[it->index];
        *rule = d->rule, *file = d->file, *line = d->line, *col = d->col;
    }
}

/* Errors first, then warnings, then fixed entries; within each by rule,
 * file, line, column; then output order. */
static int compare_items(const void *pa, const void *pb)
{
    const sarif_item *a = pa, *b = pb;
    int c = level_rank(a) - level_rank(b);
    if (c)
        return c;
    const char *ra, *rb, *fa, *fb;
    unsigned la, lb, ca, cb;
    item_place(a, &ra, &fa, &la, &ca);
    item_place(b, &rb, &fb, &lb, &cb);
    if ((c = strcmp(ra, rb)) || (c = strcmp(fa, fb)))
        return c;
    if (la != lb)
        return la < lb ? -1 : 1;
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return (a->fixed - b->fixed) ? a->fixed - b->fixed : (a->index > b->index) - (a->index < b->index);
}

static json_t *fixed_result(const report_input *in, const baseline_fixed *f)
{
    char *text = xasprintf("fixed since the baseline: %s", f->message);
    json_t *r = json_pack("{s:o, s:s, s:{s:o}, s:[{s:{s:o, s:o}}], s:s, s:[]}", "ruleId",
                          json_text(f->rule), "level", "none", "message", "text", json_text(text),
                          "locations", "physicalLocation", "artifactLocation",
                          artifact_location(in, f->file), "region", region(in, f->file, f->line, 0),
                          "baselineState", "absent", "suppressions");
    free(text);
    return r;
}

/* What the cut left out, by level, and which rules lost results. */
static char *cut_text(const sarif_item *items, size_t n, size_t kept)
{
    size_t by_level[3] = {0};
    const char **rules = xcalloc(n - kept, sizeof *rules);
    size_t nrules = 0;
    byte_buf list = {0};
    for (size_t i = kept; i < n; i++) {
        by_level[level_rank(&items[i])]++;
        const char *rule, *file;
        unsigned line, col;
        item_place(&items[i], &rule, &file, &line, &col);
        size_t r = 0;
        while (r < nrules && strcmp(rules[r], rule) != 0)
            r++;
        if (r < nrules)
            continue;
        rules[nrules++] = rule;
        if (list.data)
            buf_append(&list, ", ", 2);
        buf_append(&list, rule, strlen(rule));
    }
    char *text = xasprintf("%zu results, cut to the first %zu (the most a SARIF run may hold for "
                           "GitHub code scanning; errors are kept first): left out %zu errors, "
                           "%zu warnings and %zu fixed baseline entries, of the rules %s; run "
                           "gpulint --format json for all",
                           n, kept, by_level[0], by_level[1], by_level[2], list.data);
    free(list.data);
    free(rules);
    return text;
}

int report_sarif(FILE *out, const report_input *in)
{
    run_rule_list listed = run_rules_build(in->cfg);
    const run_rule **ids;
    size_t nids;
    json_t *rules = rule_descriptors(in, &listed, &ids, &nids);
    char **fps = fingerprints(in);
    sarif_item *items = xcalloc(in->nfindings + in->nfixed + 1, sizeof *items);
    size_t n = 0;
    for (size_t i = 0; i < in->nfindings; i++)
        if (in->sarif_full || finding_is_reported(&in->findings[i]))
            items[n++] = (sarif_item){.in = in, .index = i};
    /* Baseline entries that are gone: "absent" results, for the full
     * record only (an upload would show them as open alerts). */
    for (size_t i = 0; in->sarif_full && i < in->nfixed; i++)
        items[n++] = (sarif_item){.in = in, .index = i, .fixed = true};
    qsort(items, n, sizeof *items, compare_items);
    size_t kept = n < SARIF_MAX_RESULTS ? n : SARIF_MAX_RESULTS;
    json_t *results = json_array();
    file_line_hashes *hashes = xcalloc(in->snap->nfiles + 1, sizeof *hashes);
    for (size_t i = 0; i < kept; i++) {
        if (items[i].fixed) {
            json_array_append_new(results, fixed_result(in, &in->fixed[items[i].index]));
            continue;
        }
        const diag_finding *d = &in->findings[items[i].index];
        long index = -1;
        for (size_t k = 0; k < nids; k++)
            if (strcmp(ids[k]->id, d->rule) == 0)
                index = (long)k;
        json_array_append_new(results, result(in, d, index, fps[items[i].index], hashes));
    }
    for (size_t f = 0; f < in->snap->nfiles; f++)
        if (hashes[f].hashes)
            line_hashes_free(hashes[f].hashes, hashes[f].nlines);
    free(hashes);
    json_t *notifications = json_array();
    for (size_t i = 0; in->failures && i < in->failures->n; i++)
        json_array_append_new(notifications,
                              json_pack("{s:s, s:{s:o}}", "level", "error", "message", "text",
                                        json_text(in->failures->items[i])));
    if (n > kept) {
        char *text = cut_text(items, n, kept);
        json_array_append_new(notifications, json_pack("{s:s, s:{s:o}}", "level", "warning",
                                                        "message", "text", json_text(text)));
        free(text);
    }
    free(items);
    json_t *invocation = json_pack("{s:b, s:i, s:o}", "executionSuccessful", in->exit_code != EXIT_INTERNAL,
                                   "exitCode", in->exit_code, "toolExecutionNotifications",
                                   notifications);
    json_t *driver = json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", "gpulint", "fullName",
                               "gpulint " GPULINT_VERSION " (GPU rules for C and CUDA)", "version",
                               GPULINT_VERSION, "semanticVersion", GPULINT_VERSION, "rules", rules);
    char *information = doc_uri(in, "docs/gpulint.md", NULL);
    if (information)
        json_object_set_new(driver, "informationUri", json_text(information));
    free(information);
    json_t *run = json_pack("{s:{s:o}, s:o, s:[o], s:o}", "tool", "driver", driver,
                            "automationDetails", automation_details(), "invocations", invocation,
                            "results", results);
    if (in->snap->root) {
        char *root = uri_escape(in->snap->root);
        char *root_uri = xasprintf("file://%s/", root);
        json_object_set_new(run, "originalUriBaseIds",
                            json_pack("{s:{s:o}}", "SRCROOT", "uri", json_text(root_uri)));
        free(root_uri);
        free(root);
    }
    json_t *doc = json_pack("{s:s, s:s, s:[o]}", "$schema",
                            "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0",
                            "runs", run);
    int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
    json_decref(doc);
    for (size_t i = 0; i < in->nfindings; i++)
        free(fps[i]);
    free(fps);
    free(ids);
    run_rules_free(&listed);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
