/* The analysis of one snapshot: extraction in parallel, then every rule over
 * the facts of the whole snapshot, then the config's filtering and severities
 * and the suppressions. What is left in the sink is what the reporters print. */
#ifndef GPULINT_PIPELINE_H
#define GPULINT_PIPELINE_H

#include <stdbool.h>

#include "config/config.h"
#include "diag/diag.h"
#include "input/source.h"

/* Analyse snap with `jobs` extraction threads, with a progress line on stderr
 * when show_progress (see util/progress.h). Files libclang cannot turn into
 * a translation unit, and internal errors, are described in *failures (one
 * message each, also printed on stderr); such files are removed from snap and
 * the rules see the rest. Returns 0, or 3 when there was any failure. */
int pipeline_run(snapshot *snap, const gl_config *cfg, int jobs, bool show_progress,
                 diag_sink *sink, str_list *failures);

#endif
