/* mapped-pinned-only: host-to-device and host-to-host copies through the
 * copy API. Extraction resolved each copy's kind (extract/walk_copies.c); a
 * kind it could not prove (a non-const variable, a parameter, a params
 * struct filled elsewhere) is not reported: the rule reports what it can
 * show. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "rules/rule.h"
#include "util/xalloc.h"

/* cudaMemcpyKind values (driver_types.h). */
enum { KIND_HOST_TO_HOST = 0, KIND_HOST_TO_DEVICE = 1, KIND_DEFAULT = 4 };

static const char *forbidden_kind_name(long kind)
{
    switch (kind) {
    case KIND_HOST_TO_HOST: return "cudaMemcpyHostToHost";
    case KIND_HOST_TO_DEVICE: return "cudaMemcpyHostToDevice";
    case KIND_DEFAULT: return "cudaMemcpyDefault (cannot be proven device-side)";
    default: return NULL;
    }
}

/* "A or B" for the kinds a copy can take (bit k for kind k) when every
 * one of them is forbidden; NULL when one is allowed or unknown: the copy
 * is not proven. */
static char *forbidden_kinds_text(unsigned long kinds)
{
    if (kinds == 0)
        return NULL;
    char *text = NULL;
    for (long k = 0; k < (long)(8 * sizeof kinds); k++) {
        if (!(kinds & (1UL << k)))
            continue;
        const char *name = forbidden_kind_name(k);
        char *longer = !name ? NULL : text ? xasprintf("%s or %s", text, name) : xstrdup(name);
        free(text);
        if (!longer)
            return NULL;
        text = longer;
    }
    return text;
}

/* Copies that are one finding but for the macro body line they come from
 * (rules/rule.h, macro_sites). */
static bool same_finding(const fact_copy *a, const fact_copy *b)
{
    return a->loc.line == b->loc.line && a->loc.col == b->loc.col && a->kind == b->kind &&
           a->kind_values == b->kind_values && strcmp(a->callee, b->callee) == 0;
}

static void check(const analysis *a, diag_sink *sink)
{
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const file_facts *facts = a->facts[fi];
        const char *path = a->snap->files[fi].path;
        for (size_t k = 0; k < facts->n_copies; k++) {
            const fact_copy *c = &facts->copies[k];
            bool said = false;
            for (size_t j = 0; j < k && !said; j++)
                said = same_finding(&facts->copies[j], c);
            if (said)
                continue;
            macro_sites sites = {.snap = a->snap};
            for (size_t j = k; j < facts->n_copies; j++)
                if (same_finding(&facts->copies[j], c))
                    macro_sites_add(&sites, facts->copies[j].macro_site);
            char *note = macro_sites_note(&sites);
            macro_sites_free(&sites);
            char *kinds = c->kind == COPY_KIND_RESOLVED
                              ? forbidden_kinds_text((unsigned long)c->kind_values) : NULL;
            if (c->kind == COPY_ALWAYS_UPLOAD)
                diag_report(sink, "mapped-pinned-only", path, c->loc.line, c->loc.col,
                            "%s copies host to device: upload through the mapped pinned "
                            "buffer and a device-to-device copy%s", c->callee, note);
            else if (c->kind == COPY_BY_POINTERS)
                diag_report(sink, "mapped-pinned-only", path, c->loc.line, c->loc.col,
                            "%s takes its direction from the pointers at run time, as "
                            "cudaMemcpyDefault: it cannot be proven device-side; upload "
                            "through the mapped pinned buffer and a device-to-device copy%s",
                            c->callee, note);
            else if (kinds && c->kind_values == 1L << KIND_HOST_TO_HOST)
                diag_report(sink, "mapped-pinned-only", path, c->loc.line, c->loc.col,
                            "%s with kind %s: a host-to-host copy through the CUDA copy "
                            "API is synchronous with the host; write host buffers (the "
                            "mapped pinned one included) with memcpy%s",
                            c->callee, kinds, note);
            else if (kinds)
                diag_report(sink, "mapped-pinned-only", path, c->loc.line, c->loc.col,
                            "%s with kind %s: only mapped pinned memory crosses host to "
                            "device; copy device-to-device from the mapped buffer%s",
                            c->callee, kinds, note);
            free(kinds);
            free(note);
        }
    }
}

const rule_def rule_mapped_pinned_only = {
    .id = "mapped-pinned-only",
    .default_severity = SEV_ERROR,
    .summary = "no host-to-device, host-to-host or Default copies through "
               "the runtime's and the driver's copy APIs",
    .explain =
        "Forbids copies whose kind is cudaMemcpyHostToDevice, cudaMemcpyHostToHost or\n"
        "cudaMemcpyDefault (Default cannot be proven safe) through cudaMemcpy,\n"
        "cudaMemcpyAsync, cudaMemcpy2D*, cudaMemcpyToArray*, cudaMemcpy3D* and the\n"
        "graph memcpy nodes (cudaGraphAddMemcpyNode*, cudaGraph[Exec]MemcpyNodeSetParams*;\n"
        "the kind in the params struct, when it is set in the same function); the\n"
        "driver's cuMemcpy2D*/cuMemcpy3D* and cuGraph*MemcpyNode* whose struct's\n"
        "srcMemoryType is host memory; every cudaMemcpyToSymbol*, graph ToSymbol node,\n"
        "cuMemcpyHtoD* and cuMemcpyHtoA* (always uploads); and the copies whose\n"
        "direction comes from the pointers (cudaMemcpyBatchAsync, cudaMemcpy3DBatchAsync,\n"
        "cuMemcpy, cuMemcpyAsync, cuMemcpy[3D]BatchAsync), like Default. The kind is resolved through\n"
        "enumerators, casts, macros, constants and const variables, and through\n"
        "conditionals between them (reported when every kind they can take is\n"
        "forbidden); a kind held in a\n"
        "non-const variable or a parameter is not proven and not reported. A call\n"
        "through a function-pointer variable counts as a call of the API it holds:\n"
        "one its translation unit sets it to (initialiser or assignment) or looks up\n"
        "into it by name (cuGetProcAddress, cudaGetDriverEntryPoint*, dlsym), the\n"
        "API its type is made for (cudaTypedefs.h's PFN_cuMemcpyHtoD_v3020,\n"
        "decltype(&cuMemcpyHtoD)), else the API it is named after (a loader's\n"
        "`cuMemcpyHtoD = dlsym(...)`).\n"
        "Device-to-device and device-to-host copies are allowed.\n"
        "\n"
        "Why: only the mapped pinned buffer crosses host to device; plain uploads\n"
        "stall the stream and bypass the buffer the hot path is sized for. A\n"
        "host-to-host copy through the copy API is synchronous with the host:\n"
        "host buffers, the mapped pinned one included, are written with memcpy.\n"
        "\n"
        "Bad:\n"
        "    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);\n"
        "Good:\n"
        "    memcpy(h_mapped, h_x, bytes);\n"
        "    cudaMemcpyAsync(d_x, d_mapped, bytes, cudaMemcpyDeviceToDevice, s);\n"
        "    cudaStreamSynchronize(s);\n"
        "\n"
        "Suppress (a reason is required):\n"
        "    // gpulint: allow(mapped-pinned-only) -- one-time test setup\n",
    .check = check,
};
