#include "pipeline.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/extract.h"
#include "util/progress.h"
#include "rules/rule.h"
#include "findings/suppress.h"
#include "util/xalloc.h"

typedef struct {
    const snapshot *snap;
    const gl_config *cfg;
    diag_sink *sink;
    file_facts **facts;
    char **errors;          /* errors[i]: why file i has no facts */
    size_t next;            /* the next file to extract, under lock */
    pthread_mutex_t lock;
    progress *progress;     /* NULL: no progress line */
} extraction;

static void *extract_worker(void *arg)
{
    extraction *ex = arg;
    for (;;) {
        pthread_mutex_lock(&ex->lock);
        size_t i = ex->next++;
        pthread_mutex_unlock(&ex->lock);
        if (i >= ex->snap->nfiles)
            return NULL;
        char *error = NULL;
        ex->facts[i] = facts_extract(ex->snap, i, ex->cfg, ex->sink, &error);
        if (!ex->facts[i])
            ex->errors[i] = error ? error : xstrdup("libclang could not parse it");
        else
            free(error);
        progress_step(ex->progress);
    }
}

static void run_extraction(extraction *ex, int jobs)
{
    if (jobs < 1)
        jobs = 1;
    if ((size_t)jobs > ex->snap->nfiles)
        jobs = ex->snap->nfiles ? (int)ex->snap->nfiles : 1;
    pthread_t *threads = xcalloc((size_t)jobs, sizeof *threads);
    int started = 0;
    /* The calling thread is a worker too: -j 1 starts no thread at all. */
    for (int t = 1; t < jobs; t++)
        if (pthread_create(&threads[started], NULL, extract_worker, ex) == 0)
            started++;
    extract_worker(ex);
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    free(threads);
}

static bool rule_applies_here(const diag_finding *f, void *vcfg)
{
    return config_rule_applies(vcfg, f->rule, f->file);
}

/* Severity from the config, else the pattern's, else the registry default. */
static void assign_severities(diag_sink *sink, const gl_config *cfg)
{
    size_t n;
    diag_finding *fs = diag_findings(sink, &n);
    for (size_t i = 0; i < n; i++) {
        const rule_def *def = rule_find(fs[i].rule);
        severity fallback = def ? def->default_severity : SEV_ERROR;
        fs[i].sev = config_severity(cfg, fs[i].rule, fallback);
    }
}

static void fail(str_list *failures, const char *message)
{
    fprintf(stderr, "gpulint: error: %s\n", message);
    str_list_push(failures, message);
}

int pipeline_run(snapshot *snap, const gl_config *cfg, int jobs, bool show_progress,
                 diag_sink *sink, str_list *failures)
{
    char *error = NULL;
    if (facts_global_init(cfg, &error) != 0) {
        char *message = xasprintf("internal error: %s", error ? error : "extraction setup failed");
        fail(failures, message);
        free(message);
        free(error);
        return 3;
    }
    int rc = 0;
    extraction ex = {
        .snap = snap,
        .cfg = cfg,
        .sink = sink,
        .facts = xcalloc(snap->nfiles, sizeof(file_facts *)),
        .errors = xcalloc(snap->nfiles, sizeof(char *)),
    };
    pthread_mutex_init(&ex.lock, NULL);
    ex.progress = progress_start(snap->nfiles, show_progress);
    run_extraction(&ex, jobs);
    progress_finish(ex.progress);
    pthread_mutex_destroy(&ex.lock);

    /* Rules need facts for every file: drop the files that have none. */
    size_t kept = 0, n = snap->nfiles;
    for (size_t i = 0; i < n; i++) {
        if (ex.facts[i]) {
            ex.facts[kept++] = ex.facts[i];
            continue;
        }
        fail(failures, ex.errors[i]);
        free(ex.errors[i]);
        snapshot_remove(snap, kept);
        rc = 3;
    }

    analysis a = {.snap = snap, .facts = ex.facts, .cfg = cfg};
    for (size_t r = 0; r < rule_registry_len; r++)
        if (rule_registry[r]->check)
            rule_registry[r]->check(&a, sink);

    for (size_t i = 0; i < snap->nfiles; i++)
        facts_free(ex.facts[i]);
    free(ex.facts);
    free(ex.errors);
    facts_global_cleanup();

    diag_filter(sink, rule_applies_here, (void *)cfg);
    diag_sort_unique(sink);
    suppressions_apply(snap, cfg, sink);
    /* The suppression meta-rules were just reported: they obey the config too. */
    diag_filter(sink, rule_applies_here, (void *)cfg);
    assign_severities(sink, cfg);
    diag_sort_unique(sink);
    return rc;
}
