#define _GNU_SOURCE
#include "rules/run_rules.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static void push(run_rule_list *list, run_rule rule)
{
    *XPUSH(list->items, list->n) = rule;
}

run_rule_list run_rules_build(const gl_config *cfg)
{
    run_rule_list list = {0};
    for (size_t i = 0; i < rule_registry_len; i++) {
        const rule_def *r = rule_registry[i];
        if (strcmp(r->id, "pattern") != 0) {
            push(&list, (run_rule){.id = xstrdup(r->id), .def = r, .summary = r->summary,
                                   .sev = config_severity(cfg, r->id, r->default_severity)});
            continue;
        }
        push(&list, (run_rule){.id = xstrdup("pattern:<id>"), .def = r, .summary = r->summary,
                               .sev = r->default_severity, .family = true});
        for (size_t k = 0; k < cfg->npatterns; k++) {
            const pattern_rule *p = &cfg->patterns[k];
            char *id = xasprintf("pattern:%s", p->id);
            push(&list, (run_rule){.id = id, .def = r, .pattern = p, .summary = p->message,
                                   .sev = config_severity(cfg, id, r->default_severity)});
        }
    }
    return list;
}

void run_rules_free(run_rule_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->items[i].id);
    free(list->items);
    list->items = NULL;
    list->n = 0;
}

const run_rule *run_rules_find(const run_rule_list *list, const char *id)
{
    for (size_t i = 0; i < list->n; i++)
        if (strcmp(list->items[i].id, id) == 0 ||
            (list->items[i].family && strcmp(id, "pattern") == 0))
            return &list->items[i];
    return NULL;
}

bool rule_is_known(const gl_config *cfg, const char *id)
{
    if (strncmp(id, "pattern:", 8) == 0)
        return config_find_pattern(cfg, id) != NULL;
    return rule_find(id) != NULL;
}

int rules_check_config(const gl_config *cfg, char **error)
{
    for (size_t i = 0; i < cfg->nrules; i++) {
        const rule_config *rc = &cfg->rules[i];
        if (rule_is_known(cfg, rc->id))
            continue;
        *error = xasprintf("%s:%zu:%zu: error: unknown rule '%s' in rules%s", cfg->shown_path,
                           rc->line, rc->column, rc->id,
                           strncmp(rc->id, "pattern:", 8) == 0
                               ? " (no pattern with that id under patterns:)"
                               : " (gpulint --list-rules lists them)");
        return -1;
    }
    return 0;
}
