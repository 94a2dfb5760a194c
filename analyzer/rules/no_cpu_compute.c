/* no-cpu-compute: floating-point arithmetic in a loop, in a hot host
 * function or anywhere down its calls (across files, by USR).
 *
 * Hot: the gpulint:hot annotation on any declaration, or a name matching a
 * `hot:` glob. GPU code (__global__, __device__-only) is neither hot nor
 * followed; __host__ __device__ functions are followed: called from host
 * code they run on the host. A call is followed to the definition its USR
 * resolves to (rules/symbol_index.h). A direct site is reported where it computes;
 * a chain at the hot function's call that starts it, naming the chain. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "rules/rule.h"
#include "rules/symbol_index.h"
#include "util/xalloc.h"
#include "util/glob.h"

typedef struct {
    const fact_float_loop *site;   /* NULL: none */
    size_t file;
} compute_site;

/* What the rule knows of one definition: defs[i] of the index has nodes[i]. */
typedef struct {
    compute_site floating;     /* floating-point arithmetic in a loop */
    compute_site *dependent;   /* a template's arithmetic in a loop on its
                                  parameters' types, in file order */
    size_t n_dependent;
    bool hot;
} node;

typedef struct {
    const fact_call *call;
    size_t file;           /* the caller's file */
} call_site;

typedef struct {
    symbol_index defs;     /* the host definitions */
    node *nodes;
    call_site *calls;      /* sorted by caller USR, then file */
    size_t ncalls;
} call_graph;

static int call_cmp(const void *a, const void *b)
{
    const call_site *x = a, *y = b;
    int c = strcmp(x->call->caller_usr, y->call->caller_usr);
    return c ? c : (x->file > y->file) - (x->file < y->file);
}

/* The calls the definition defs[d] makes: [*first, *first + count). */
static size_t calls_of(const call_graph *g, size_t d, size_t *first)
{
    const char *usr = g->defs.defs[d].fn->usr;
    size_t file = g->defs.defs[d].file;
    size_t lo = 0, hi = g->ncalls;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(g->calls[mid].call->caller_usr, usr);
        if (c < 0 || (c == 0 && g->calls[mid].file < file))
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < g->ncalls && g->calls[end].file == file &&
           strcmp(g->calls[end].call->caller_usr, usr) == 0)
        end++;
    *first = lo;
    return end - lo;
}

static bool name_is_hot(const gl_config *cfg, const char *name)
{
    for (size_t i = 0; cfg && i < cfg->hot.n; i++)
        if (glob_match(cfg->hot.items[i], name))
            return true;
    return false;
}

static bool runs_on_host(const fact_function *f)
{
    return f->exec == EXEC_HOST || f->exec == EXEC_HOST_DEVICE;
}

static void build_graph(const analysis *a, call_graph *g)
{
    symbol_index_build(&g->defs, a, runs_on_host);
    g->nodes = xcalloc(g->defs.n ? g->defs.n : 1, sizeof *g->nodes);
    size_t ncalls = 0;   /* sized once, as in symbol_index_build */
    for (size_t fi = 0; fi < a->snap->nfiles; fi++)
        ncalls += a->facts[fi]->n_calls;
    g->calls = xmalloc((ncalls ? ncalls : 1) * sizeof *g->calls);
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const file_facts *facts = a->facts[fi];
        for (size_t k = 0; k < facts->n_calls; k++)
            g->calls[g->ncalls++] = (call_site){ &facts->calls[k], fi };
    }
    if (g->ncalls)   /* qsort's array may not be NULL, even empty (UBSan) */
        qsort(g->calls, g->ncalls, sizeof *g->calls, call_cmp);
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const file_facts *facts = a->facts[fi];
        for (size_t k = 0; k < facts->n_float_loops; k++) {
            const fact_float_loop *loop = &facts->float_loops[k];
            long d = symbol_index_resolve(&g->defs, loop->function_usr, fi);
            if (d < 0 || g->defs.defs[d].file != fi)
                continue;
            node *n = &g->nodes[d];
            if (loop->template_params || loop->class_params) {
                *XPUSH(n->dependent, n->n_dependent) = (compute_site){ loop, fi };
            } else if (!n->floating.site) {
                n->floating = (compute_site){ loop, fi };
            }
        }
        /* The annotation may sit on a declaration only (a header): it makes
         * every definition of the symbol hot. */
        for (size_t k = 0; k < facts->n_functions; k++) {
            const fact_function *f = &facts->functions[k];
            if (!f->is_hot_annotated && !name_is_hot(a->cfg, f->name))
                continue;
            size_t first, n = symbol_index_usr(&g->defs, f->usr, &first);
            for (size_t i = first; i < first + n; i++)
                g->nodes[i].hot = true;
        }
    }
}

/* Where a function reached through a call computes: a template's
 * arithmetic on its parameters' types counts when the call makes one of
 * those parameters a float (my_replace(b, e, 1.0f, 2.0f) steps the
 * iterator b, a float *, and only compares the floats), its own or its
 * class's (Blend<float>::mix_rows). */
static const compute_site *computes_via(const node *n, const fact_call *call)
{
    if (n->floating.site)
        return &n->floating;
    for (size_t i = 0; i < n->n_dependent; i++) {
        const fact_float_loop *site = n->dependent[i].site;
        if ((site->template_params & call->floating_template_args) ||
            (site->class_params & call->floating_class_args))
            return &n->dependent[i];
    }
    return NULL;
}

/* Breadth-first from the callee of `site`: the nearest function that
 * computes in a loop (*where), with the chain to it in `parent` (node
 * indices, parent links). */
static long nearest_compute(const call_graph *g, const fact_call *site, size_t start,
                            long *parent, const compute_site **where)
{
    long *queue = xmalloc(g->defs.n * sizeof *queue);
    const fact_call **via = xmalloc(g->defs.n * sizeof *via);
    bool *seen = xcalloc(g->defs.n, sizeof *seen);
    size_t head = 0, tail = 0;
    queue[tail++] = (long)start;
    via[start] = site;
    seen[start] = true;
    parent[start] = -1;
    long found = -1;
    while (head < tail && found < 0) {
        long cur = queue[head++];
        if ((*where = computes_via(&g->nodes[cur], via[cur])) != NULL) {
            found = cur;
            break;
        }
        size_t first, n = calls_of(g, (size_t)cur, &first);
        for (size_t i = first; i < first + n; i++) {
            long idx = symbol_index_resolve(&g->defs, g->calls[i].call->callee_usr,
                                            g->calls[i].file);
            if (idx < 0)
                continue;
            if (!seen[idx]) {
                seen[idx] = true;
                parent[idx] = cur;
                via[idx] = g->calls[i].call;
                queue[tail++] = idx;
            }
        }
    }
    free(queue);
    free(via);
    free(seen);
    return found;
}

static void report_chain(const analysis *a, const call_graph *g, const symbol_def *hot,
                         const fact_call *site, long end, const long *parent,
                         const compute_site *where, diag_sink *sink)
{
    char chain[2048];
    size_t used = (size_t)snprintf(chain, sizeof chain, "%s", hot->fn->name);
    long path[64];
    size_t depth = 0;
    for (long cur = end; cur >= 0 && depth < 64; cur = parent[cur])
        path[depth++] = cur;
    while (depth > 0 && used < sizeof chain)
        used += (size_t)snprintf(chain + used, sizeof chain - used, " -> %s",
                                 g->defs.defs[path[--depth]].fn->name);
    const fact_float_loop *loop = where->site;
    diag_report(sink, "no-cpu-compute", a->snap->files[hot->file].path, site->loc.line,
                site->loc.col,
                "hot path computes on the CPU: %s computes floating-point arithmetic in "
                "a loop%s%s at %s:%u; move it into a kernel or precompute it",
                chain, loop->via ? " through " : "", loop->via ? loop->via : "",
                a->snap->files[where->file].path, loop->loc.line);
}

static void check(const analysis *a, diag_sink *sink)
{
    call_graph g = { 0 };
    build_graph(a, &g);
    long *parent = xmalloc((g.defs.n ? g.defs.n : 1) * sizeof *parent);
    for (size_t h = 0; h < g.defs.n; h++) {
        const symbol_def *hot = &g.defs.defs[h];
        const node *hot_node = &g.nodes[h];
        if (!hot_node->hot)
            continue;
        const fact_float_loop *own = hot_node->floating.site;
        if (own)
            diag_report(sink, "no-cpu-compute", a->snap->files[hot_node->floating.file].path,
                        own->loc.line, own->loc.col,
                        "hot function '%s' computes floating-point arithmetic in a loop%s%s "
                        "on the CPU; move it into a kernel or precompute it",
                        hot->fn->name, own->via ? " through " : "", own->via ? own->via : "");
        size_t first, n = calls_of(&g, h, &first);
        for (size_t i = first; i < first + n; i++) {
            const fact_call *site = g.calls[i].call;
            long callee = symbol_index_resolve(&g.defs, site->callee_usr, g.calls[i].file);
            if (callee < 0 || (size_t)callee == h)
                continue;
            const compute_site *where;
            long end = nearest_compute(&g, site, (size_t)callee, parent, &where);
            if (end >= 0)
                report_chain(a, &g, hot, site, end, parent, where, sink);
        }
    }
    free(parent);
    for (size_t i = 0; i < g.defs.n; i++)
        free(g.nodes[i].dependent);
    free(g.nodes);
    free(g.calls);
    symbol_index_free(&g.defs);
}

const rule_def rule_no_cpu_compute = {
    .id = "no-cpu-compute",
    .default_severity = SEV_ERROR,
    .summary = "floating-point arithmetic in loops on the CPU, in or called from hot "
               "host functions",
    .explain =
        "Forbids, in a hot host function, floating-point arithmetic (+ - * / and\n"
        "their compound assignments, ++/-- on floats, calls to the C math library\n"
        "with a floating result: expf, fmaxf, sqrt, std::exp) inside a loop, and\n"
        "calls that lead (directly or through any chain, across files) to a host\n"
        "function that does so. The finding names the chain: hot -> callee -> ...\n"
        "and the line that computes. Function templates, member templates and\n"
        "members of class templates (Blend<float>::mix) count where a call\n"
        "makes the type their loop computes on a float (T in sum += x[i], not\n"
        "the iterator of ++it), and so do library templates such as\n"
        "std::accumulate over floats.\n"
        "A function is hot when it carries\n"
        "__attribute__((annotate(\"gpulint:hot\"))) or matches a `hot:` glob in\n"
        ".gpulint.yaml. Integer arithmetic, kernel launches, CUDA/cuBLAS calls and\n"
        "one-off scalar setup outside loops are allowed. __global__ and __device__\n"
        "code is never flagged; __host__ __device__ functions called from hot host\n"
        "code run on the host and are checked.\n"
        "\n"
        "Why: the dispatch path is GPU-only; a CPU loop over floats there is a\n"
        "hidden synchronous bottleneck.\n"
        "\n"
        "Bad:\n"
        "    GPULINT_HOT void forward(float *h, int n) {\n"
        "        for (int i = 0; i < n; i++) h[i] *= 0.5f;\n"
        "    }\n"
        "Good:\n"
        "    GPULINT_HOT void forward(float *d, int n, cudaStream_t s) {\n"
        "        scale_kernel<<<blocks(n), 256, 0, s>>>(d, 0.5f, n);\n"
        "    }\n"
        "\n"
        "Suppress (a reason is required):\n"
        "    // gpulint: allow(no-cpu-compute) -- n <= 3, cheaper than a launch\n",
    .check = check,
};
