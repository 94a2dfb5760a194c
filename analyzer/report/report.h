/* Reporters: one file per output format (report/<format>.c). Each only reads
 * the findings pipeline_run made (analyzer/pipeline.h), already filtered,
 * suppressed, matched against the baseline and sorted; suppressed findings
 * are skipped by the formats that have no place for them. */
#ifndef GPULINT_REPORT_H
#define GPULINT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "findings/baseline.h"
#include "config/config.h"
#include "diag/diag.h"
#include "input/source.h"

typedef struct {
    const snapshot *snap;          /* for the source lines */
    const gl_config *cfg;
    const diag_finding *findings;
    size_t nfindings;
    size_t files_analyzed;
    size_t files_checked;          /* of those, the files checked in full */
    bool color;                    /* text: ANSI colours */
    int exit_code;                 /* what gpulint will exit with (util/exit_codes.h;
                                      SARIF records it) */
    const str_list *failures;      /* internal errors */
    bool baseline_active;          /* --baseline: findings carry in_baseline */
    bool sarif_full;               /* --sarif-full: SARIF keeps suppressed, known and fixed
                                      findings (report/sarif.c); else only alerts */
    const baseline_fixed *fixed;   /* baseline entries no finding matched any more */
    size_t nfixed;
} report_input;

/* Each returns 0, or -1 when writing failed. */
int report_text(FILE *out, const report_input *in);
int report_json(FILE *out, const report_input *in);
int report_github(FILE *out, const report_input *in);
int report_sarif(FILE *out, const report_input *in);

#endif
