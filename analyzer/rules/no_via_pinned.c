/* no-via-pinned: skeleton row; the check lands with the extraction. */
#include "../rule.h"

const rule_def rule_no_via_pinned = {
    .id = "no-via-pinned",
    .default_severity = SEV_ERROR,
    .summary = "no upload_f32_via_pinned / clone_to_device_*_via_pinned anywhere in a file",
    .explain = "no upload_f32_via_pinned / clone_to_device_*_via_pinned anywhere in a file\n",
    .check = NULL,
};
