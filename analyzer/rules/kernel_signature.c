/* kernel-signature: skeleton row; the check lands with the extraction. */
#include "../rule.h"

const rule_def rule_kernel_signature = {
    .id = "kernel-signature",
    .default_severity = SEV_ERROR,
    .summary = "kernel declarations, launches and extern \"C\" declarations match their definitions",
    .explain = "kernel declarations, launches and extern \"C\" declarations match their definitions\n",
    .check = NULL,
};
