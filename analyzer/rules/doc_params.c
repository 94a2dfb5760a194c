/* doc-params: skeleton row; the check lands with the extraction. */
#include "../rule.h"

const rule_def rule_doc_params = {
    .id = "doc-params",
    .default_severity = SEV_WARNING,
    .summary = "@param names a parameter the function has",
    .explain = "@param names a parameter the function has\n",
    .check = NULL,
};
