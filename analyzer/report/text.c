/* clang-style text: `file:line:col: severity: message [rule]`, the source
 * line and a caret under the column. */
#include <string.h>

#include "report/report.h"
#include "util/files.h"

#define BOLD "\033[1m"
#define RED "\033[1;31m"
#define MAGENTA "\033[1;35m"
#define GREEN "\033[1;32m"
#define RESET "\033[0m"

static void put_visible(FILE *out, const char *s)
{
    files_put_visible(out, s, strlen(s), 0);
}

static void print_source_and_caret(FILE *out, const report_input *in, const diag_finding *d)
{
    long idx = snapshot_find(in->snap, d->file);
    const char *line;
    size_t len;
    if (idx < 0 || !source_line_text(&in->snap->files[idx], d->line, &line, &len))
        return;
    files_put_visible(out, line, len, 1);
    fputc('\n', out);
    /* Keep the line's tabs so the caret lands under the column in any tab width. */
    for (size_t i = 0; i + 1 < d->col && i < len; i++)
        fputc(line[i] == '\t' ? '\t' : ' ', out);
    fprintf(out, "%s^%s\n", in->color ? GREEN : "", in->color ? RESET : "");
}

int report_text(FILE *out, const report_input *in)
{
    for (size_t i = 0; i < in->nfindings; i++) {
        const diag_finding *d = &in->findings[i];
        if (!finding_is_reported(d))
            continue;
        bool is_error = d->sev == SEV_ERROR;
        const char *sev_colour = is_error ? RED : MAGENTA;
        /* Names and messages come from the files analysed and the baseline:
         * control characters are shown, never sent to the terminal. */
        fputs(in->color ? BOLD : "", out);
        put_visible(out, d->file);
        fprintf(out, ":%u:%u:%s %s%s:%s %s", d->line, d->col, in->color ? RESET : "",
                in->color ? sev_colour : "", is_error ? "error" : "warning",
                in->color ? RESET : "", in->color ? BOLD : "");
        put_visible(out, d->message);
        fprintf(out, "%s [", in->color ? RESET : "");
        put_visible(out, d->rule);
        fputs("]\n", out);
        print_source_and_caret(out, in, d);
    }
    for (size_t i = 0; i < in->nfixed; i++) {
        const baseline_fixed *f = &in->fixed[i];
        fputs(in->color ? BOLD : "", out);
        put_visible(out, f->file);
        fprintf(out, ":%u:%s %snote:%s fixed since the baseline: ", f->line,
                in->color ? RESET : "", in->color ? GREEN : "", in->color ? RESET : "");
        put_visible(out, f->message);
        fputs(" [", out);
        put_visible(out, f->rule);
        fputs("]\n", out);
    }
    return ferror(out) ? -1 : 0;
}
