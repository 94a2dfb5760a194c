/* no-cpu-compute: skeleton row; the check lands with the extraction. */
#include "../rule.h"

const rule_def rule_no_cpu_compute = {
    .id = "no-cpu-compute",
    .default_severity = SEV_ERROR,
    .summary = "no floating-point arithmetic in loops reachable from hot host functions",
    .explain = "no floating-point arithmetic in loops reachable from hot host functions\n",
    .check = NULL,
};
