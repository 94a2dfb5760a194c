/* unchecked-status: a CUDA runtime, driver or cuBLAS status dropped by an
 * expression statement. Extraction decides what a dropped status is
 * (extract/walk_statuses.c: functions declared in the CUDA headers returning
 * cudaError_t, CUresult or cublasStatus_t, called as a statement). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "rules/rule.h"

static bool same_finding(const fact_unchecked *a, const fact_unchecked *b)
{
    return a->loc.line == b->loc.line && a->loc.col == b->loc.col &&
           strcmp(a->callee, b->callee) == 0;
}

static void check(const analysis *a, diag_sink *sink)
{
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const file_facts *facts = a->facts[fi];
        for (size_t k = 0; k < facts->n_unchecked; k++) {
            const fact_unchecked *u = &facts->unchecked[k];
            bool said = false;
            for (size_t j = 0; j < k && !said; j++)
                said = same_finding(&facts->unchecked[j], u);
            if (said)
                continue;
            macro_sites sites = {.snap = a->snap};
            for (size_t j = k; j < facts->n_unchecked; j++)
                if (same_finding(&facts->unchecked[j], u))
                    macro_sites_add(&sites, facts->unchecked[j].macro_site);
            char *note = macro_sites_note(&sites);
            diag_report(sink, "unchecked-status", a->snap->files[fi].path, u->loc.line,
                        u->loc.col,
                        "the status %s returns is dropped: check it (CUDA_CHECK, "
                        "CUBLAS_CHECK) or cast it to (void) to say it does not matter%s",
                        u->callee, note);
            free(note);
            macro_sites_free(&sites);
        }
    }
}

const rule_def rule_unchecked_status = {
    .id = "unchecked-status",
    .default_severity = SEV_ERROR,
    .summary = "CUDA runtime, driver and cuBLAS calls whose status is silently dropped",
    .explain =
        "Forbids calling a CUDA runtime (cuda*), driver (cu*) or cuBLAS (cublas*)\n"
        "function that returns cudaError_t, CUresult or cublasStatus_t as a statement\n"
        "of its own, dropping the status. Checking it, assigning it, passing it to a\n"
        "function or macro, returning it, or casting it to (void) are all fine.\n"
        "\n"
        "Why: CUDA errors are sticky and asynchronous; a dropped status turns a failed\n"
        "launch or copy into wrong numbers far from the cause.\n"
        "\n"
        "Bad:\n"
        "    cudaStreamSynchronize(s);\n"
        "Good:\n"
        "    CUDA_CHECK(cudaStreamSynchronize(s));\n"
        "    (void)cudaFree(p);   /* on an error path that is already failing */\n"
        "\n"
        "Suppress (a reason is required):\n"
        "    // gpulint: allow(unchecked-status) -- teardown, the process exits next\n",
    .check = check,
};
