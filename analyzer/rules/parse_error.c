/* parse-error: compiler errors libclang found in a file, one finding per
 * error in the file itself (extract/extract.c records them as facts, also
 * when the facts come from the cache); the other rules still run on the AST
 * libclang built. Fatal errors are rules/not_checked.c's. */
#define _GNU_SOURCE   /* memmem */
#include <string.h>

#include "facts/facts.h"
#include "rules/lost_header.h"
#include "rules/rule.h"

/* The first line of f with CUDA syntax (execution spaces, a launch, shared
 * memory, the thread indices), or 0: a .cpp with it and with errors is most
 * likely one the build compiles as CUDA (host C++ that includes the CUDA
 * runtime knows __host__ and __device__, and then has no error from them). */
static unsigned cuda_syntax_line(const source_file *f)
{
    static const char *const words[] = {"__global__", "__device__", "__host__", "__shared__",
                                        "__constant__", "threadIdx", "blockIdx"};
    long first = -1;
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
        long at = source_find_word(f, words[w]);
        if (at >= 0 && (first < 0 || at < first))
            first = at;
    }
    const char *launch = memmem(f->masked, f->len, "<<<", 3);
    if (launch && (first < 0 || launch - f->masked < first))
        first = launch - f->masked;
    if (first < 0)
        return 0;
    unsigned line, col;
    source_line_col(f, (size_t)first, &line, &col);
    return line;
}

static void check(const analysis *a, diag_sink *sink)
{
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const file_facts *facts = a->facts[fi];
        /* A file not checked in full is not-checked's: the errors that follow
         * from a missing header only repeat that it is missing. */
        if (facts->n_not_checked)
            continue;
        /* Nor are the errors of a header parsed without an includer's
         * context: one that could not find it, or none analysed at all
         * (rules/lost_header.h). */
        lost_header lost;
        if (lost_header_find(a, fi, &lost)) {
            lost_header_free(&lost);
            continue;
        }
        const source_file *f = &a->snap->files[fi];
        unsigned cuda_line = 0;
        /* A file the compile database lists is parsed as its build compiles
         * it (its -x, or nvcc's choice by extension). */
        if (facts->n_parse_errors && f->lang != LANG_CUDA && !f->args)
            cuda_line = cuda_syntax_line(f);
        for (size_t k = 0; k < facts->n_parse_errors; k++) {
            const fact_parse_error *e = &facts->parse_errors[k];
            if (k == 0 && cuda_line)
                diag_report(sink, "parse-error", f->path, e->loc.line, e->loc.col,
                            "%s (this file was parsed as %s, by its extension, but line %u has "
                            "CUDA syntax: if the build compiles it as CUDA (nvcc -x cu), give "
                            "gpulint the build's compile database (-p DIR), or map its extension "
                            "to cuda with languages: in .gpulint.yaml)",
                            e->message, f->lang == LANG_CXX ? "C++" : "C", cuda_line);
            else
                diag_report(sink, "parse-error", f->path, e->loc.line, e->loc.col, "%s",
                            e->message);
        }
    }
}

const rule_def rule_parse_error = {
    .id = "parse-error",
    .default_severity = SEV_WARNING,
    .summary = "compiler errors in a file (the other rules still run on what parsed)",
    .explain =
        "Reports each error clang finds in a file, with clang's message. The other\n"
        "rules still run on the syntax tree clang recovered, so a file with errors\n"
        "is analysed as far as it parsed.\n"
        "\n"
        "Why: clang and nvcc disagree on some CUDA code; an error here means parts\n"
        "of the file may not have been analysed, not necessarily that nvcc rejects\n"
        "it. A header parsed on its own (no file analysed includes it, or its\n"
        "includer could not find it) whose parse has errors is not-checked\n"
        "instead, once: without its includer's context, nothing tells an error of\n"
        "its own from one of the missing context.\n"
        "\n"
        "Errors inside __global__ and __device__ bodies are not reported: gpulint\n"
        "parses the host side only, where device intrinsics (__ldcs, ...) are\n"
        "missing, and nvcc compiles those bodies. A parameter type clang cannot\n"
        "read there (an unknown type name) is reported: the host declares and\n"
        "launches a kernel through its parameters' types.\n"
        "\n"
        "Bad:\n"
        "    void launch(float *x) { scale_all(x); }   /* scale_all declared nowhere */\n"
        "Good:\n"
        "    #include \"helpers.h\"   /* declares scale_all() */\n"
        "    void launch(float *x) { scale_all(x); }\n"
        "\n"
        "Give gpulint the include directories and defines the build uses\n"
        "(include-dirs:, defines: in .gpulint.yaml). Suppress (a reason is required):\n"
        "    // gpulint: allow-file(parse-error) -- clang rejects this nvcc extension\n",
    .check = check,
};
