#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/contain.h"
#include "extract/extract.h"
#include "results.h"
#include "shard.h"
#include "findings/suppress.h"
#include "rules/rule.h"
#include "util/exit_codes.h"
#include "util/progress.h"
#include "util/xalloc.h"

static void fail(str_list *failures, const char *message)
{
    fprintf(stderr, "gpulint: error: %s\n", message);
    str_list_push(failures, message);
}

/* Every rule over the facts of the whole snapshot (facts_of is freed). */
static void judge(snapshot *snap, const gl_config *cfg, file_facts **facts_of,
                  diag_list *found, size_t *files_checked, str_list *unbuilt)
{
    for (size_t i = 0; i < snap->nfiles; i++) {
        const file_facts *facts = facts_of[i];
        for (size_t k = 0; k < facts->n_not_checked; k++) {
            fact_unchecked_cause cause = facts->not_checked[k].cause;
            if (cause == UNCHECKED_NO_TU || cause == UNCHECKED_CRASH) {
                str_list_push(unbuilt, snap->files[i].path);
                break;
            }
        }
    }

    diag_sink *sink = diag_sink_new();
    analysis a = {.snap = snap, .facts = facts_of, .cfg = cfg};
    for (size_t r = 0; r < rule_registry_len; r++)
        if (rule_registry[r]->check)
            rule_registry[r]->check(&a, sink);
    *found = diag_sink_take(sink);
    diag_sink_free(sink);
    /* Nothing is reported in a file that is only a unit of headers
     * (source_file.unit_only): a pattern rule reads its text. */
    size_t kept = 0;
    for (size_t i = 0; i < found->n; i++) {
        long fi = snapshot_find(snap, found->items[i].file);
        if (fi >= 0 && snap->files[fi].unit_only)
            diag_finding_free(&found->items[i]);
        else
            found->items[kept++] = found->items[i];
    }
    found->n = kept;

    /* A file is checked in full when nothing says otherwise: no not-checked
     * finding, from its facts or from a rule that could not finish on it (a
     * regex limit, rules/pattern.c). found is sorted by file. */
    size_t unchecked = 0;
    const char *last = NULL;
    for (size_t i = 0; i < found->n; i++)
        if (strcmp(found->items[i].rule, "not-checked") == 0 &&
            (!last || strcmp(last, found->items[i].file) != 0)) {
            unchecked++;
            last = found->items[i].file;
        }
    *files_checked = snapshot_analysed(snap) - unchecked;

    for (size_t i = 0; i < snap->nfiles; i++)
        facts_free(facts_of[i]);
    free(facts_of);
}

/* Extraction (after facts_global_init), then every rule: *found is what the
 * rules reported (sorted). Files not checked in full are counted out of
 * *files_checked; those libclang made no translation unit of are named in
 * *unbuilt (their not-checked findings exit 3). When nothing they depend on
 * changed since a run that kept its result (results.h), that result. */
static void find(snapshot *snap, const gl_config *cfg, const pipeline_options *opt,
                 diag_list *found, size_t *files_checked, str_list *unbuilt)
{
    if (!results_lookup(snap, cfg, found, files_checked, unbuilt)) {
        file_facts **facts = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof *facts);
        bool *from_cache = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof *from_cache);
        progress *shown = progress_start(snap->nfiles, opt->show_progress);
        facts_extract_all(snap, cfg, NULL, opt->jobs, shown, facts, from_cache, true);
        progress_finish(shown);
        judge(snap, cfg, facts, found, files_checked, unbuilt);
        results_store(snap, cfg, from_cache, found, *files_checked, unbuilt);
        free(from_cache);
    }
    facts_global_cleanup();
}

/* --shard: extract the shard's files and write their facts. */
static int extract_shard(snapshot *snap, const gl_config *cfg, const pipeline_options *opt,
                         pipeline_result *out)
{
    file_facts **facts = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof *facts);
    bool *owned = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof *owned);
    for (size_t i = 0; i < snap->nfiles; i++)
        owned[i] = shard_owns(opt->shard, snap->files[i].path);
    progress *shown = progress_start(snap->nfiles, opt->show_progress);
    facts_extract_all(snap, cfg, owned, opt->jobs, shown, facts, NULL, false);
    progress_finish(shown);
    free(owned);
    char *error = NULL;
    int rc = EXIT_CLEAN;
    if (shard_write(opt->shard_dir, opt->shard, snap, facts, &out->shard_files, &error) != 0) {
        fail(&out->failures, error);
        free(error);
        rc = EXIT_INTERNAL;
    }
    for (size_t i = 0; i < snap->nfiles; i++)
        facts_free(facts[i]);
    free(facts);
    facts_global_cleanup();
    return rc;
}

/* --merge: the facts of every file from the shards, then the rules. False
 * (said on stderr) when the shards do not cover the snapshot. */
static bool merge_shards(snapshot *snap, const gl_config *cfg, const pipeline_options *opt,
                         pipeline_result *out)
{
    file_facts **facts = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof *facts);
    char *error = NULL;
    if (shard_merge(opt->merge_dir, snap, facts, &error) != 0) {
        fprintf(stderr, "gpulint: error: %s\n", error);
        free(error);
        for (size_t i = 0; i < snap->nfiles; i++)
            facts_free(facts[i]);
        free(facts);
        return false;
    }
    judge(snap, cfg, facts, &out->findings, &out->files_checked, &out->unbuilt);
    return true;
}


static bool names(const str_list *list, const char *path)
{
    for (size_t i = 0; i < list->n; i++)
        if (strcmp(list->items[i], path) == 0)
            return true;
    return false;
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
    if (opt->shard || opt->merge_dir) {
        if (opt->shard) {
            if (facts_global_init(cfg, snap, &error) != 0) {
                fprintf(stderr, "gpulint: error: internal error: %s\n", error);
                free(error);
                return EXIT_INTERNAL;
            }
            return extract_shard(snap, cfg, opt, out);
        }
        if (!merge_shards(snap, cfg, opt, out))
            return EXIT_USAGE;
        advance(list, applicable(list, cfg));
        advance(list, suppressions_apply(snap, cfg, list));
        assign_severities(list, cfg);
    } else if (facts_global_init(cfg, snap, &error) != 0) {
        /* Nothing was analysed: no findings to judge, only the baseline's. */
        char *message = xasprintf("internal error: %s", error ? error : "extraction setup failed");
        fail(&out->failures, message);
        free(message);
        free(error);
        failed = true;
    } else {
        find(snap, cfg, opt, list, &out->files_checked, &out->unbuilt);
        advance(list, applicable(list, cfg));
        advance(list, suppressions_apply(snap, cfg, list));
        assign_severities(list, cfg);
    }

    bool baseline_ok = !opt->write_baseline || write_baseline(opt->write_baseline, snap, list);
    if (opt->baseline) {
        diag_list marked;
        error = NULL;
        int rc = opt->baseline_text
                     ? baseline_apply_text(opt->baseline, opt->baseline_text, opt->baseline_len,
                                           snap, list, &marked, &out->fixed, &out->nfixed,
                                           &error)
                     : baseline_apply(opt->baseline, snap, list, &marked, &out->fixed,
                                      &out->nfixed, &error);
        if (rc == 0) {
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
    int rc = EXIT_CLEAN;
    for (size_t i = 0; i < list->n && !opt->write_baseline; i++) {
        const diag_finding *f = &list->items[i];
        if (!finding_is_reported(f) || f->sev != SEV_ERROR)
            continue;
        /* DESIGN.md: a file libclang could not turn into a translation
         * unit is exit 3, unless its not-checked finding was accepted
         * (downgraded, suppressed or in the baseline). */
        if (strcmp(f->rule, "not-checked") == 0 && names(&out->unbuilt, f->file))
            return EXIT_INTERNAL;
        rc = EXIT_FINDINGS;
    }
    return rc;
}

void pipeline_result_free(pipeline_result *result)
{
    diag_list_free(&result->findings);
    baseline_fixed_free(result->fixed, result->nfixed);
    for (size_t i = 0; i < result->failures.n; i++)
        free(result->failures.items[i]);
    free(result->failures.items);
    for (size_t i = 0; i < result->unbuilt.n; i++)
        free(result->unbuilt.items[i]);
    free(result->unbuilt.items);
    *result = (pipeline_result){0};
}
