/* parse-error: skeleton row; the check lands with the extraction. */
#include "../rule.h"

const rule_def rule_parse_error = {
    .id = "parse-error",
    .default_severity = SEV_WARNING,
    .summary = "compiler errors in a file (the rules still run on what parsed)",
    .explain = "compiler errors in a file (the rules still run on what parsed)\n",
    .check = NULL,
};
