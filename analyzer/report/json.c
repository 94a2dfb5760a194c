/* JSON, the schema docs/gpulint.md documents, written with jansson, versioned and described by
 * docs/gpulint-output.schema.json (tests/integrations/json-schema.bats checks
 * real output against it):
 * {"schema_version","tool","version","files_analyzed","files_checked",
 *  "findings":[{rule,severity,file,line,column,message}]} */
#include <jansson.h>

#include "util/json_text.h"
#include "report/report.h"
#include "version.h"

/* Raised only when a field is removed or changes meaning (the schema's $id
 * names the file; its "schema_version" const follows this). */
enum { JSON_SCHEMA_VERSION = 1 };

int report_json(FILE *out, const report_input *in)
{
    json_t *findings = json_array();
    for (size_t i = 0; i < in->nfindings; i++) {
        const diag_finding *d = &in->findings[i];
        if (!finding_is_reported(d))
            continue;
        json_array_append_new(findings,
                              json_pack("{s:o, s:s, s:o, s:I, s:I, s:o}", "rule",
                                        json_text(d->rule), "severity",
                                        d->sev == SEV_ERROR ? "error" : "warning", "file",
                                        json_text(d->file), "line", (json_int_t)d->line,
                                        "column", (json_int_t)d->col, "message",
                                        json_text(d->message)));
    }
    json_t *root = json_pack("{s:i, s:s, s:s, s:I, s:I, s:o}", "schema_version",
                             JSON_SCHEMA_VERSION, "tool", "gpulint", "version", GPULINT_VERSION,
                             "files_analyzed", (json_int_t)in->files_analyzed, "files_checked",
                             (json_int_t)in->files_checked, "findings", findings);
    if (in->baseline_active) {
        /* Only with --baseline: the documented schema stays as it is without. */
        size_t known = 0;
        for (size_t i = 0; i < in->nfindings; i++)
            known += in->findings[i].in_baseline && !in->findings[i].suppressed;
        json_t *fixed = json_array();
        for (size_t i = 0; i < in->nfixed; i++)
            json_array_append_new(fixed, json_pack("{s:o, s:o, s:I, s:o}", "rule",
                                                   json_text(in->fixed[i].rule), "file",
                                                   json_text(in->fixed[i].file), "line",
                                                   (json_int_t)in->fixed[i].line, "message",
                                                   json_text(in->fixed[i].message)));
        json_object_set_new(root, "baseline_matched", json_integer((json_int_t)known));
        json_object_set_new(root, "fixed", fixed);
    }
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    json_decref(root);
    fputc('\n', out);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
