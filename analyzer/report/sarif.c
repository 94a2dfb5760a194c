/* SARIF 2.1.0, the format GitHub code scanning and most CI dashboards take:
 * one run; tool.driver.rules lists every rule of this run (the registry's,
 * and each configured pattern); results carry a stable fingerprint;
 * suppressed findings are results with a `suppressions` entry holding their
 * justification. GitHub accepts at most 25,000 results per run: above that
 * the run is truncated and says so in a toolExecutionNotification. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "findings/fingerprint.h"
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

/* Where a rule's documentation lives: on GitHub at the analysed commit when
 * running in Actions, else the docs in this checkout. */
static char *help_uri(const report_input *in, const char *rule_id)
{
    const char *page = "docs/rules.md";
    /* GitHub's anchor of the heading "pattern:<id>" drops the punctuation. */
    const char *anchor = strncmp(rule_id, "pattern:", 8) == 0 ? "patternid" : rule_id;
    const char *server = getenv("GITHUB_SERVER_URL"), *repo = getenv("GITHUB_REPOSITORY"),
               *sha = getenv("GITHUB_SHA");
    if (server && repo && sha && *server && *repo && *sha)
        return xasprintf("%s/%s/blob/%s/%s#%s", server, repo, sha, page, anchor);
    char *root = uri_escape(in->snap->root ? in->snap->root : "/");
    char *uri = xasprintf("file://%s%s%s#%s", root, root[strlen(root) - 1] == '/' ? "" : "/", page,
                          anchor);
    free(root);
    return uri;
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
    char *full = first_paragraph(explain);
    char *uri = help_uri(in, id);
    json_t *r = json_pack("{s:o, s:{s:o}, s:{s:o}, s:{s:o}, s:o, s:{s:s}}", "id", json_text(id),
                          "shortDescription", "text", json_text(summary), "fullDescription",
                          "text", json_text(full), "help", "text", json_text(explain), "helpUri",
                          json_text(uri), "defaultConfiguration", "level", level(sev));
    free(full);
    free(uri);
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
static unsigned utf16_column(const report_input *in, const diag_finding *d)
{
    long idx = snapshot_find(in->snap, d->file);
    const char *line;
    size_t len;
    if (idx < 0 || !source_line_text(&in->snap->files[idx], d->line, &line, &len))
        return d->col;
    size_t bytes = d->col - 1 < len ? d->col - 1 : len;
    unsigned units = 0;
    for (size_t i = 0; i < bytes; i++) {
        unsigned char c = (unsigned char)line[i];
        if ((c & 0xC0) == 0x80)
            continue;   /* a continuation byte: counted with its lead */
        units += (c & 0xF8) == 0xF0 ? 2 : 1;
    }
    return units + 1 + (unsigned)(d->col - 1 - bytes);
}

static json_t *result(const report_input *in, const diag_finding *d, long rule_index,
                      const char *fingerprint)
{
    json_t *region = json_pack("{s:I}", "startLine", (json_int_t)(d->line ? d->line : 1));
    if (d->col)
        json_object_set_new(region, "startColumn", json_integer(utf16_column(in, d)));
    json_t *r = json_pack("{s:o, s:s, s:{s:o}, s:[{s:{s:o, s:o}}], s:{s:s}}", "ruleId",
                          json_text(d->rule), "level", level(d->sev), "message", "text",
                          json_text(d->message), "locations", "physicalLocation",
                          "artifactLocation", artifact_location(in, d->file), "region", region,
                          "partialFingerprints", "gpulint/v1", fingerprint);
    if (rule_index >= 0)
        json_object_set_new(r, "ruleIndex", json_integer(rule_index));
    if (in->baseline_active)
        json_object_set_new(r, "baselineState", json_string(d->in_baseline ? "unchanged" : "new"));
    if (d->suppressed)
        json_object_set_new(r, "suppressions",
                            json_pack("[{s:s, s:o}]", "kind", "inSource", "justification",
                                      json_text(d->suppress_reason ? d->suppress_reason : "")));
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

int report_sarif(FILE *out, const report_input *in)
{
    run_rule_list listed = run_rules_build(in->cfg);
    const run_rule **ids;
    size_t nids;
    json_t *rules = rule_descriptors(in, &listed, &ids, &nids);
    char **fps = fingerprints(in);
    json_t *results = json_array();
    size_t emitted = 0;
    for (size_t i = 0; i < in->nfindings && emitted < SARIF_MAX_RESULTS; i++, emitted++) {
        long index = -1;
        for (size_t k = 0; k < nids; k++)
            if (strcmp(ids[k]->id, in->findings[i].rule) == 0)
                index = (long)k;
        json_array_append_new(results, result(in, &in->findings[i], index, fps[i]));
    }
    /* Baseline entries that are gone: "absent" results, so dashboards can
     * show what was fixed. */
    for (size_t i = 0; i < in->nfixed && emitted < SARIF_MAX_RESULTS; i++, emitted++) {
        const baseline_fixed *f = &in->fixed[i];
        char *text = xasprintf("fixed since the baseline: %s", f->message);
        json_t *region = json_pack("{s:I}", "startLine", (json_int_t)(f->line ? f->line : 1));
        json_array_append_new(results,
                              json_pack("{s:o, s:s, s:{s:o}, s:[{s:{s:o, s:o}}], s:s}", "ruleId",
                                        json_text(f->rule), "level", "none", "message", "text",
                                        json_text(text), "locations", "physicalLocation",
                                        "artifactLocation", artifact_location(in, f->file),
                                        "region", region, "baselineState", "absent"));
        free(text);
    }
    json_t *notifications = json_array();
    for (size_t i = 0; in->failures && i < in->failures->n; i++)
        json_array_append_new(notifications,
                              json_pack("{s:s, s:{s:o}}", "level", "error", "message", "text",
                                        json_text(in->failures->items[i])));
    if (in->nfindings + in->nfixed > SARIF_MAX_RESULTS) {
        char *text = xasprintf("%zu results, truncated to the first %d (the most a SARIF run may "
                               "hold for GitHub code scanning); run gpulint --format json for all",
                               in->nfindings + in->nfixed, SARIF_MAX_RESULTS);
        json_array_append_new(notifications, json_pack("{s:s, s:{s:o}}", "level", "warning",
                                                        "message", "text", json_text(text)));
        free(text);
    }
    json_t *invocation = json_pack("{s:b, s:i, s:o}", "executionSuccessful", in->exit_code != EXIT_INTERNAL,
                                   "exitCode", in->exit_code, "toolExecutionNotifications",
                                   notifications);
    json_t *run = json_pack("{s:{s:{s:s, s:s, s:o}}, s:[o], s:o}", "tool", "driver", "name",
                            "gpulint", "version", GPULINT_VERSION, "rules", rules, "invocations",
                            invocation, "results", results);
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
