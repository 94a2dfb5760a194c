/* mapped-pinned-only: skeleton row; the check lands with the extraction. */
#include "../rule.h"

const rule_def rule_mapped_pinned_only = {
    .id = "mapped-pinned-only",
    .default_severity = SEV_ERROR,
    .summary = "no host-to-device or host-to-host copies through cudaMemcpy*/cuMemcpyHtoD*",
    .explain = "no host-to-device or host-to-host copies through cudaMemcpy*/cuMemcpyHtoD*\n",
    .check = NULL,
};
