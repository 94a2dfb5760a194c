/* doc-params: a doc comment's @param / \param naming a parameter the
 * function does not have (clang's own check of the parsed comment). */
#include "facts/facts.h"
#include "rules/rule.h"

static void check(const analysis *a, diag_sink *sink)
{
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const file_facts *facts = a->facts[fi];
        for (size_t k = 0; k < facts->n_doc_params; k++) {
            const fact_doc_param *d = &facts->doc_params[k];
            diag_report(sink, "doc-params", a->snap->files[fi].path, d->loc.line,
                        d->loc.col,
                        "@param '%s' names no parameter of '%s': the comment drifted "
                        "from the code", d->param_name, d->function_name);
        }
    }
}

const rule_def rule_doc_params = {
    .id = "doc-params",
    .default_severity = SEV_WARNING,
    .summary = "doc comments whose @param names a parameter the function does not have",
    .explain =
        "Forbids a doc comment (/** ... */ or ///) whose @param or \\param names a\n"
        "parameter the documented function does not have. Reported at the @param\n"
        "line.\n"
        "\n"
        "Why: trust the code, not the docs: a renamed or removed parameter whose\n"
        "comment was not updated documents something that no longer exists.\n"
        "\n"
        "Bad:\n"
        "    /** @param stride  row stride */\n"
        "    void pack(float *dst, int ld);\n"
        "Good:\n"
        "    /** @param ld  row stride */\n"
        "    void pack(float *dst, int ld);\n"
        "\n"
        "Suppress (a reason is required):\n"
        "    // gpulint: allow(doc-params) -- generated header, fixed upstream\n",
    .check = check,
};
