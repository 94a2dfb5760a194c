#include "pipeline.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/extract.h"
#include "findings/suppress.h"
#include "rules/rule.h"
#include "util/exit_codes.h"
#include "util/progress.h"
#include "util/xalloc.h"

typedef struct {
    const snapshot *snap;
    const gl_config *cfg;
    file_facts **facts;
    char **errors;          /* errors[i]: why file i has no facts */
    size_t next;            /* the next file to extract, under lock */
    pthread_mutex_t lock;
    progress *progress;     /* NULL: no progress line */
    const shard_spec *shard;   /* extract only its files, or NULL: all */
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
        if (ex->shard && !shard_owns(ex->shard, ex->snap->files[i].path))
            continue;
        char *error = NULL;
        ex->facts[i] = facts_extract(ex->snap, i, ex->cfg, &error);
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

static void fail(str_list *failures, const char *message)
{
    fprintf(stderr, "gpulint: error: %s\n", message);
    str_list_push(failures, message);
}

/* Extraction (after facts_global_init), then every rule: *found is what the
 * rules reported (sorted). Returns false when a file could not be analysed
 * (said in *failures). */
static bool find(snapshot *snap, const gl_config *cfg, const pipeline_options *opt,
                 str_list *failures, diag_list *found, pipeline_result *out, int *status)
{
    bool all_analysed = true;
    extraction ex = {
        .snap = snap,
        .cfg = cfg,
        .facts = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof(file_facts *)),
        .errors = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof(char *)),
        .shard = opt->shard,
    };
    char *error = NULL;
    if (opt->merge_dir) {
        if (shard_merge(opt->merge_dir, snap, ex.facts, ex.errors, &error) != 0) {
            fail(failures, error);
            free(error);
            *status = EXIT_USAGE;
        }
    } else {
        pthread_mutex_init(&ex.lock, NULL);
        ex.progress = progress_start(snap->nfiles, opt->show_progress);
        run_extraction(&ex, opt->jobs);
        progress_finish(ex.progress);
        pthread_mutex_destroy(&ex.lock);
    }
    if (opt->shard && shard_write(opt->shard_dir, opt->shard, snap, ex.facts, ex.errors,
                                  &out->shard_files, &error) != 0) {
        fail(failures, error);
        free(error);
        *status = EXIT_INTERNAL;
    }
    if (opt->shard || *status) {
        /* A shard's files are judged by the merge; a merge without its
         * shards judges nothing. */
        for (size_t i = 0; i < snap->nfiles; i++) {
            facts_free(ex.facts[i]);
            free(ex.errors[i]);
        }
        free(ex.facts);
        free(ex.errors);
        facts_global_cleanup();
        *found = (diag_list){0};
        return *status == 0;
    }

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
        all_analysed = false;
    }

    diag_sink *sink = diag_sink_new();
    analysis a = {.snap = snap, .facts = ex.facts, .cfg = cfg};
    for (size_t r = 0; r < rule_registry_len; r++)
        if (rule_registry[r]->check)
            rule_registry[r]->check(&a, sink);
    *found = diag_sink_take(sink);
    diag_sink_free(sink);

    for (size_t i = 0; i < snap->nfiles; i++)
        facts_free(ex.facts[i]);
    free(ex.facts);
    free(ex.errors);
    facts_global_cleanup();
    return all_analysed;
}

/* The config stage: the findings of rules the config applies to their file. */
static diag_list applicable(const diag_list *found, const gl_config *cfg)
{
    diag_sink *out = diag_sink_new();
    for (size_t i = 0; i < found->n; i++)
        if (config_rule_applies(cfg, found->items[i].rule, found->items[i].file))
            diag_add_copy(out, &found->items[i]);
    diag_list kept = diag_sink_take(out);
    diag_sink_free(out);
    return kept;
}

/* Severity from the config, else the pattern's, else the registry default. */
static void assign_severities(diag_list *list, const gl_config *cfg)
{
    for (size_t i = 0; i < list->n; i++) {
        diag_finding *f = &list->items[i];
        const rule_def *def = rule_find(f->rule);
        f->sev = config_severity(cfg, f->rule, def ? def->default_severity : SEV_ERROR);
    }
}

/* --write-baseline: false (said on stderr) when the file cannot be written. */
static bool write_baseline(const char *path, const snapshot *snap, const diag_list *list)
{
    char *error = NULL;
    if (baseline_write(path, snap, list->items, list->n, &error) != 0) {
        fprintf(stderr, "gpulint: error: %s\n", error);
        free(error);
        return false;
    }
    size_t recorded = 0;
    for (size_t i = 0; i < list->n; i++)
        recorded += !list->items[i].suppressed;
    fprintf(stderr, "gpulint: wrote %zu finding%s to the baseline %s\n", recorded,
            recorded == 1 ? "" : "s", path);
    return true;
}

/* Replace *list by next, the list a stage made of it. */
static void advance(diag_list *list, diag_list next)
{
    diag_list_free(list);
    *list = next;
}

int pipeline_run(snapshot *snap, const gl_config *cfg, const pipeline_options *opt,
                 pipeline_result *out)
{
    *out = (pipeline_result){0};
    diag_list *list = &out->findings;
    bool failed = false;
    char *error = NULL;
    if (!opt->merge_dir && facts_global_init(cfg, snap, &error) != 0) {
        /* Nothing was analysed: no findings to judge, only the baseline's. */
        char *message = xasprintf("internal error: %s", error ? error : "extraction setup failed");
        fail(&out->failures, message);
        free(message);
        free(error);
        failed = true;
    } else {
        int status = 0;
        failed = !find(snap, cfg, opt, &out->failures, list, out, &status);
        if (status == EXIT_USAGE || opt->shard)
            return status;
        advance(list, applicable(list, cfg));
        advance(list, suppressions_apply(snap, cfg, list));
        assign_severities(list, cfg);
    }

    bool baseline_ok = !opt->write_baseline || write_baseline(opt->write_baseline, snap, list);
    if (opt->baseline) {
        diag_list marked;
        error = NULL;
        if (baseline_apply(opt->baseline, snap, list, &marked, &out->fixed, &out->nfixed,
                           &error) == 0) {
            advance(list, marked);
        } else {
            fprintf(stderr, "gpulint: error: %s\n", error);
            free(error);
            baseline_ok = false;
        }
    }

    if (failed)
        return EXIT_INTERNAL;
    if (!baseline_ok)
        return EXIT_USAGE;
    /* Writing a baseline accepts what it recorded: only failures fail it. */
    for (size_t i = 0; i < list->n && !opt->write_baseline; i++)
        if (finding_is_reported(&list->items[i]) && list->items[i].sev == SEV_ERROR)
            return EXIT_FINDINGS;
    return EXIT_CLEAN;
}

void pipeline_result_free(pipeline_result *result)
{
    diag_list_free(&result->findings);
    baseline_fixed_free(result->fixed, result->nfixed);
    for (size_t i = 0; i < result->failures.n; i++)
        free(result->failures.items[i]);
    free(result->failures.items);
    *result = (pipeline_result){0};
}
