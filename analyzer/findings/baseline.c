#include "findings/baseline.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "findings/fingerprint.h"
#include "util/files.h"
#include "util/json_text.h"
#include "version.h"
#include "util/xalloc.h"

enum { BASELINE_FORMAT = 1 };
#define BASELINE_MAX_BYTES ((size_t)256 << 20)

int baseline_write(const char *path, const snapshot *snap, const diag_finding *fs, size_t n,
                   char **error)
{
    json_t *entries = json_array();
    for (size_t i = 0; i < n; i++) {
        /* Every unsuppressed finding, also those an older baseline knew. */
        if (fs[i].suppressed)
            continue;
        char key[65];
        finding_key(snap, &fs[i], key);
        json_array_append_new(entries,
                              json_pack("{s:o, s:o, s:I, s:o, s:s}", "rule", json_text(fs[i].rule),
                                        "file", json_text(fs[i].file), "line",
                                        (json_int_t)fs[i].line, "message", json_text(fs[i].message),
                                        "fingerprint", key));
    }
    json_t *doc = json_pack("{s:s, s:s, s:i, s:o}", "tool", "gpulint", "version", GPULINT_VERSION,
                            "baseline_format", BASELINE_FORMAT, "findings", entries);
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    char *why = NULL;
    /* Atomically: a full disk must leave the old baseline whole, or the
     * next --baseline run has none to compare with. */
    int rc = text ? files_write_atomically(path, text, strlen(text), &why) : -1;
    free(text);
    if (rc != 0) {
        *error = xasprintf("cannot write the baseline: %s", why ? why : "out of memory");
        free(why);
        return -1;
    }
    return 0;
}

typedef struct {
    const char *fingerprint;
    json_t *entry;
    bool matched;
} baseline_entry;

static int compare_entries(const void *a, const void *b)
{
    return strcmp(((const baseline_entry *)a)->fingerprint, ((const baseline_entry *)b)->fingerprint);
}

static const char *string_field(json_t *entry, const char *name)
{
    return json_string_value(json_object_get(entry, name));
}

static bool has_control_characters(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

/* What is wrong with one baseline entry, or NULL: every field
 * --write-baseline writes, of its type and range, so that a hand-edited or
 * hostile baseline cannot print as something else (a line of -1 as
 * 4294967295, a file name carrying terminal escapes). */
static const char *entry_problem(json_t *e)
{
    if (!json_is_object(e))
        return "not an object";
    static const char *const text_fields[] = {"rule", "file", "message"};
    for (size_t k = 0; k < 3; k++) {
        const char *v = string_field(e, text_fields[k]);
        if (!v)
            return k == 0 ? "\"rule\" is missing or not a string"
                 : k == 1 ? "\"file\" is missing or not a string"
                          : "\"message\" is missing or not a string";
        if (has_control_characters(v))
            return k == 0 ? "\"rule\" holds a control character"
                 : k == 1 ? "\"file\" holds a control character"
                          : "\"message\" holds a control character";
    }
    json_t *line = json_object_get(e, "line");
    if (!json_is_integer(line) || json_integer_value(line) < 1 ||
        json_integer_value(line) > (json_int_t)UINT_MAX)
        return "\"line\" must be a whole number from 1 to 4294967295";
    const char *fp = string_field(e, "fingerprint");
    if (!fp || strlen(fp) != 64 || strspn(fp, "0123456789abcdef") != 64)
        return "\"fingerprint\" must be 64 lower-case hex digits (as --write-baseline writes)";
    return NULL;
}

/* The first unmatched entry with this fingerprint, by binary search. */
static baseline_entry *find_unmatched(baseline_entry *entries, size_t n, const char *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(entries[mid].fingerprint, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && strcmp(entries[lo].fingerprint, key) == 0; lo++)
        if (!entries[lo].matched)
            return &entries[lo];
    return NULL;
}

static int compare_fixed(const void *pa, const void *pb)
{
    const baseline_fixed *a = pa, *b = pb;
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if ((c = strcmp(a->rule, b->rule)))
        return c;
    return strcmp(a->message, b->message);
}

static int apply_document(json_t *doc, const char *path, const snapshot *snap,
                          const diag_list *found, diag_list *marked, baseline_fixed **fixed,
                          size_t *nfixed, char **error);

static char *load_error(const char *path, const json_error_t *jerr)
{
    return jerr->line > 0 ? xasprintf("%s:%d:%d: error: not a gpulint baseline: %s", path,
                                      jerr->line, jerr->column, jerr->text)
                          : xasprintf("cannot read the baseline '%s': %s", path, jerr->text);
}

int baseline_apply(const char *path, const snapshot *snap, const diag_list *found,
                   diag_list *marked, baseline_fixed **fixed, size_t *nfixed, char **error)
{
    json_t *doc = files_load_json(path, "baseline", BASELINE_MAX_BYTES, error);
    if (!doc)
        return -1;
    return apply_document(doc, path, snap, found, marked, fixed, nfixed, error);
}

int baseline_apply_text(const char *shown, const char *text, size_t len, const snapshot *snap,
                        const diag_list *found, diag_list *marked, baseline_fixed **fixed,
                        size_t *nfixed, char **error)
{
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    if (!doc) {
        *error = load_error(shown, &jerr);
        return -1;
    }
    return apply_document(doc, shown, snap, found, marked, fixed, nfixed, error);
}

/* Takes the reference to doc. */
static int apply_document(json_t *doc, const char *path, const snapshot *snap,
                          const diag_list *found, diag_list *marked, baseline_fixed **fixed,
                          size_t *nfixed, char **error)
{
    json_t *list = json_object_get(doc, "findings");
    if (json_integer_value(json_object_get(doc, "baseline_format")) != BASELINE_FORMAT ||
        !json_is_array(list)) {
        *error = xasprintf("%s: error: not a gpulint baseline (format %d, written by "
                           "--write-baseline)", path, BASELINE_FORMAT);
        json_decref(doc);
        return -1;
    }
    size_t n = json_array_size(list);
    baseline_entry *entries = xcalloc(n ? n : 1, sizeof *entries);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(list, i);
        entries[i].entry = e;
        entries[i].fingerprint = string_field(e, "fingerprint");
        const char *problem = entry_problem(e);
        if (problem) {
            *error = xasprintf("%s: error: baseline entry %zu (findings[%zu]): %s", path, i, i,
                               problem);
            free(entries);
            json_decref(doc);
            return -1;
        }
    }
    qsort(entries, n, sizeof *entries, compare_entries);

    diag_sink *out = diag_sink_new();
    for (size_t i = 0; i < found->n; i++) {
        diag_finding f = found->items[i];
        if (finding_is_reported(&f)) {
            char key[65];
            finding_key(snap, &f, key);
            baseline_entry *match = find_unmatched(entries, n, key);
            if (match) {
                match->matched = true;
                f.in_baseline = true;
            }
        }
        diag_add_copy(out, &f);
    }
    *marked = diag_sink_take(out);
    diag_sink_free(out);

    *fixed = NULL;
    *nfixed = 0;
    for (size_t i = 0; i < n; i++) {
        if (entries[i].matched)
            continue;
        json_t *e = entries[i].entry;
        const char *message = string_field(e, "message");
        *XPUSH(*fixed, *nfixed) = (baseline_fixed){
            .rule = xstrdup(string_field(e, "rule")),
            .file = xstrdup(string_field(e, "file")),
            .message = xstrdup(message ? message : ""),
            .line = (unsigned)json_integer_value(json_object_get(e, "line")),
        };
    }
    if (*nfixed > 1)
        qsort(*fixed, *nfixed, sizeof **fixed, compare_fixed);
    free(entries);
    json_decref(doc);
    return 0;
}

void baseline_fixed_free(baseline_fixed *fixed, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(fixed[i].rule);
        free(fixed[i].file);
        free(fixed[i].message);
    }
    free(fixed);
}
