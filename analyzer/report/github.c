/* GitHub Actions workflow commands, one per finding:
 *   ::error file=F,line=L,col=C,title=RULE::MESSAGE
 * GitHub turns them into annotations on the changed lines of a pull request.
 * In the message %, CR and LF are escaped; in property values also : and ,
 * (they separate the properties); other control characters are shown as
 * \xNN. */
#include "report/report.h"

static void put_escaped(FILE *out, const char *s, bool property)
{
    for (; *s; s++) {
        switch (*s) {
        case '%': fputs("%25", out); break;
        case '\r': fputs("%0D", out); break;
        case '\n': fputs("%0A", out); break;
        case ':': property ? fputs("%3A", out) : fputc(':', out); break;
        case ',': property ? fputs("%2C", out) : fputc(',', out); break;
        default:
            /* Other control characters would reach the log as they are:
             * shown instead, as the text format shows them. */
            if ((unsigned char)*s < 0x20 || *s == 0x7f)
                fprintf(out, "\\x%02x", (unsigned char)*s);
            else
                fputc(*s, out);
        }
    }
}

int report_github(FILE *out, const report_input *in)
{
    for (size_t i = 0; i < in->nfindings; i++) {
        const diag_finding *d = &in->findings[i];
        if (!finding_is_reported(d))
            continue;
        fprintf(out, "::%s file=", d->sev == SEV_ERROR ? "error" : "warning");
        put_escaped(out, d->file, true);
        fprintf(out, ",line=%u,col=%u,title=", d->line, d->col);
        put_escaped(out, d->rule, true);
        fputs("::", out);
        put_escaped(out, d->message, false);
        fputs(" [", out);
        put_escaped(out, d->rule, false);
        fputs("]\n", out);
    }
    for (size_t i = 0; i < in->nfixed; i++) {
        const baseline_fixed *f = &in->fixed[i];
        fputs("::notice file=", out);
        put_escaped(out, f->file, true);
        fprintf(out, ",line=%u,title=", f->line ? f->line : 1);
        put_escaped(out, f->rule, true);
        fputs("::fixed since the baseline: ", out);
        put_escaped(out, f->message, false);
        fputs("\n", out);
    }
    return ferror(out) ? -1 : 0;
}
