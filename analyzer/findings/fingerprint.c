#include "findings/fingerprint.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/xalloc.h"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

char *normalise_line(const char *line, size_t len)
{
    char *out = xmalloc(len + 1);
    size_t n = 0;
    bool pending_space = false;
    for (size_t i = 0; i < len; i++) {
        if (is_blank(line[i])) {
            pending_space = n > 0;
            continue;
        }
        if (pending_space)
            out[n++] = ' ';
        pending_space = false;
        out[n++] = line[i];
    }
    out[n] = '\0';
    return out;
}

void finding_key(const snapshot *snap, const diag_finding *f, char out[65])
{
    long idx = snapshot_find(snap, f->file);
    const char *line;
    size_t len;
    char *text;
    if (idx >= 0 && source_line_text(&snap->files[idx], f->line, &line, &len))
        text = normalise_line(line, len);
    else
        text = xstrdup(f->message);
    /* NUL separators: no rule/file/text combination can imitate another. */
    byte_buf b = {0};
    buf_append(&b, f->rule, strlen(f->rule) + 1);
    buf_append(&b, f->file, strlen(f->file) + 1);
    buf_append(&b, text, strlen(text));
    sha256_hex(b.data, b.len, out);
    buf_free(&b);
    free(text);
}
