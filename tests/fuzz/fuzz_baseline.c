/* Baselines (analyzer/findings/baseline.c) applied to one finding. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "findings/baseline.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[] = "int x;\n";
    snapshot snap = {0};
    source_file f;
    source_file_init(&f, strdup("a.c"), strdup("/nonexistent/a.c"), strdup(text), strlen(text), NULL);
    snapshot_add(&snap, &f);
    diag_finding one = {.rule = (char *)"no-via-pinned", .file = (char *)"a.c", .line = 1, .col = 1,
                        .message = (char *)"m", .sev = SEV_ERROR};
    diag_list found = {.items = &one, .n = 1};
    diag_list marked = {0};
    baseline_fixed *fixed = NULL;
    size_t nfixed = 0;
    char *error = NULL;
    if (baseline_apply(fuzz_input_file(data, size), &snap, &found, &marked, &fixed, &nfixed,
                       &error) == 0) {
        diag_list_free(&marked);
        baseline_fixed_free(fixed, nfixed);
    } else if (!error) {
        abort();
    }
    free(error);
    snapshot_free(&snap);
    return 0;
}
