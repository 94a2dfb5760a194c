/* no-via-pinned: the retired pinned-staging helpers, anywhere in a file.
 *
 * Two sources, one report per site:
 *  - a token scan of the masked text (comments and string literals blanked),
 *    which sees what libclang cannot: `#define` bodies, `#if 0` blocks,
 *    headers that fail to parse;
 *  - the facts' macro-hidden names: declarations and references whose name
 *    the text never spells (token pasting, a macro that names the helper),
 *    reported at the expansion site.
 * A site found by both is reported once. */
#include <ctype.h>
#include <stdlib.h>

#include "facts/facts.h"
#include "rules/rule.h"
#include "util/xalloc.h"
#include "util/glob.h"

static const char *const default_banned[] = { "upload_f32_via_pinned",
                                              "clone_to_device_*_via_pinned" };

static bool is_banned(const gl_config *cfg, const char *name)
{
    if (cfg && cfg->banned_names.n > 0) {
        for (size_t i = 0; i < cfg->banned_names.n; i++)
            if (glob_match(cfg->banned_names.items[i], name))
                return true;
        return false;
    }
    for (size_t i = 0; i < sizeof default_banned / sizeof default_banned[0]; i++)
        if (glob_match(default_banned[i], name))
            return true;
    return false;
}

static bool is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

typedef struct {
    fact_loc *items;
    size_t n;
} site_set;

static bool site_seen(const site_set *s, unsigned line, unsigned col)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->items[i].line == line && s->items[i].col == col)
            return true;
    return false;
}

static void site_add(site_set *s, unsigned line, unsigned col)
{
    XPUSH(s->items, s->n)->line = line;
    s->items[s->n - 1].col = col;
}

#define FIX_HINT "stage uploads through the mapped pinned buffer: write its host " \
                 "pointer, cudaMemcpyAsync device-to-device from its device pointer, sync"

static void scan_text(const analysis *a, size_t fi, diag_sink *sink, site_set *seen)
{
    const source_file *f = &a->snap->files[fi];
    const char *t = f->masked ? f->masked : f->text;
    char name[256];
    for (size_t i = 0; i < f->len;) {
        if (!(isalpha((unsigned char)t[i]) || t[i] == '_') ||
            (i > 0 && is_ident_char(t[i - 1]))) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < f->len && is_ident_char(t[i]))
            i++;
        size_t n = i - start;
        if (n >= sizeof name)
            continue;
        for (size_t k = 0; k < n; k++)
            name[k] = t[start + k];
        name[n] = '\0';
        if (!is_banned(a->cfg, name))
            continue;
        unsigned line, col;
        source_line_col(f, start, &line, &col);
        site_add(seen, line, col);
        diag_report(sink, "no-via-pinned", f->path, line, col,
                    "'%s' is a retired pinned-staging helper: %s", name, FIX_HINT);
    }
}

static void check(const analysis *a, diag_sink *sink)
{
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        site_set seen = { 0 };
        scan_text(a, fi, sink, &seen);
        const file_facts *facts = a->facts[fi];
        for (size_t k = 0; k < facts->n_hidden_names; k++) {
            const fact_hidden_name *h = &facts->hidden_names[k];
            if (!is_banned(a->cfg, h->name) || site_seen(&seen, h->loc.line, h->loc.col))
                continue;
            site_add(&seen, h->loc.line, h->loc.col);
            diag_report(sink, "no-via-pinned", a->snap->files[fi].path, h->loc.line,
                        h->loc.col,
                        "'%s' (named through a macro here) is a retired pinned-staging "
                        "helper: %s", h->name, FIX_HINT);
        }
        free(seen.items);
    }
}

const rule_def rule_no_via_pinned = {
    .id = "no-via-pinned",
    .default_severity = SEV_ERROR,
    .summary = "no declaration of or reference to upload_f32_via_pinned / "
               "clone_to_device_*_via_pinned, anywhere in a file",
    .explain =
        "Forbids any declaration of or reference to a function named\n"
        "upload_f32_via_pinned or clone_to_device_<anything>_via_pinned (or the\n"
        "globs under `banned-names:` in .gpulint.yaml), also when a macro pastes the\n"
        "name together (reported where the macro is expanded) and inside #define\n"
        "bodies and #if 0 blocks. The whole file is checked, not only changed lines,\n"
        "so a file cannot be half-migrated. Comments and string literals are not code.\n"
        "\n"
        "Why: these helpers stage every upload through a separate pinned copy. The\n"
        "sanctioned upload writes a mapped pinned buffer through its host pointer,\n"
        "copies device-to-device from its device pointer, then synchronises.\n"
        "\n"
        "Bad:\n"
        "    upload_f32_via_pinned(d_w, h_w, n);\n"
        "Good:\n"
        "    memcpy(h_mapped, h_w, n * sizeof(float));\n"
        "    CUDA_CHECK(cudaMemcpyAsync(d_w, d_mapped, n * sizeof(float),\n"
        "                               cudaMemcpyDeviceToDevice, stream));\n"
        "    CUDA_CHECK(cudaStreamSynchronize(stream));\n"
        "\n"
        "Suppress (a reason is required):\n"
        "    // gpulint: allow(no-via-pinned) -- removed with TICKET-1 next sprint\n",
    .check = check,
};
