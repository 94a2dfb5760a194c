/* The one table of rules. Adding a rule: a new file in this directory that
 * defines its rule_def, and a row here. */
#include <string.h>

#include "rules/rule.h"

extern const rule_def rule_no_via_pinned;
extern const rule_def rule_mapped_pinned_only;
extern const rule_def rule_no_cpu_compute;
extern const rule_def rule_kernel_signature;
extern const rule_def rule_doc_params;
extern const rule_def rule_unchecked_status;
extern const rule_def rule_pattern;            /* "pattern:<id>" rules from the config */
extern const rule_def rule_parse_error;        /* compiler errors, from the facts */
extern const rule_def rule_not_checked;        /* files not checked in full, from the facts */
extern const rule_def rule_invalid_suppression;
extern const rule_def rule_unused_suppression;

const rule_def *const rule_registry[] = {
    &rule_no_via_pinned,
    &rule_mapped_pinned_only,
    &rule_no_cpu_compute,
    &rule_kernel_signature,
    &rule_doc_params,
    &rule_unchecked_status,
    &rule_pattern,
    &rule_parse_error,
    &rule_not_checked,
    &rule_invalid_suppression,
    &rule_unused_suppression,
};
const size_t rule_registry_len = sizeof rule_registry / sizeof rule_registry[0];

const rule_def *rule_find(const char *id)
{
    if (strncmp(id, "pattern:", 8) == 0)
        return &rule_pattern;
    for (size_t i = 0; i < rule_registry_len; i++)
        if (strcmp(rule_registry[i]->id, id) == 0)
            return rule_registry[i];
    return NULL;
}
