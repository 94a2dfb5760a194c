/* The analysis of one snapshot, stage by stage: extraction in parallel, then
 * every rule over the facts of the whole snapshot (into the one sink,
 * diag/diag.h), then stages that each read the list the one before made and
 * build a new one: the config's filtering, the suppressions, the baseline
 * (the severities are set before it). What comes out is what the reporters
 * print. */
#ifndef GPULINT_PIPELINE_H
#define GPULINT_PIPELINE_H

#include <stdbool.h>

#include "config/config.h"
#include "diag/diag.h"
#include "findings/baseline.h"
#include "input/source.h"
#include "shard.h"

typedef struct {
    int jobs;                     /* extraction threads */
    bool show_progress;           /* a progress line on stderr (util/progress.h) */
    const char *baseline;         /* --baseline FILE, the config's `baseline:`, or NULL */
    /* The baseline's text when it comes from the index (--staged), with
     * `baseline` naming it in messages; NULL: read the file `baseline`. */
    const char *baseline_text;
    size_t baseline_len;
    const char *write_baseline;   /* --write-baseline FILE, or NULL */
    const shard_spec *shard;      /* --shard K/N: extract only its files, write their facts */
    const char *shard_dir;        /* where --shard writes (shard.h) */
    const char *merge_dir;        /* --merge DIR: the facts come from the shards there */
} pipeline_options;

typedef struct {
    diag_list findings;      /* sorted, severities set, suppressed / in_baseline marked */
    baseline_fixed *fixed;   /* --baseline: its entries no finding matched any more */
    size_t nfixed;
    str_list failures;       /* internal errors, one message each */
    size_t files_checked;    /* files of the snapshot checked in full (no not-checked fact) */
    str_list unbuilt;        /* files libclang made no translation unit of */
    size_t shard_files;      /* --shard: the files whose facts it wrote */
} pipeline_result;

/* Analyse snap into *out. Internal errors are described in out->failures
 * (also printed on stderr). A file not checked in full (rules/not_checked.c)
 * stays in snap with a not-checked finding, and is not counted in
 * out->files_checked.
 * With opt->write_baseline, the findings not suppressed are written there
 * (before --baseline marks any) and do not fail the run. Returns the exit
 * status (util/exit_codes.h): EXIT_INTERNAL when there was any failure or a
 * reported error-severity not-checked finding of a file libclang made no
 * translation unit of, else
 * EXIT_USAGE when the baseline could not be read or written (said on
 * stderr), else EXIT_FINDINGS when a reported finding is an error, else
 * EXIT_CLEAN. With opt->shard, no rule runs: the shard file is written
 * (EXIT_CLEAN, or EXIT_INTERNAL when it cannot be); with opt->merge_dir, the
 * facts come from the shards, and shards that do not cover snap are
 * EXIT_USAGE (said on stderr). */
int pipeline_run(snapshot *snap, const gl_config *cfg, const pipeline_options *opt,
                 pipeline_result *out);

void pipeline_result_free(pipeline_result *result);

#endif
