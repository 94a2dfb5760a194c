/* unchecked-status: skeleton row; the check lands with the extraction. */
#include "../rule.h"

const rule_def rule_unchecked_status = {
    .id = "unchecked-status",
    .default_severity = SEV_ERROR,
    .summary = "CUDA/driver/cuBLAS status results are not dropped",
    .explain = "CUDA/driver/cuBLAS status results are not dropped\n",
    .check = NULL,
};
