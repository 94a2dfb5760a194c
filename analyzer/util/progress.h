/* The progress line on a terminal: "gpulint: 37/89 files, 1.2 s" on stderr,
 * redrawn in place while files are extracted and erased at the end, so the
 * report that follows starts on a clean line. */
#ifndef GPULINT_PROGRESS_H
#define GPULINT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct progress progress;

/* `enabled`: stderr is a terminal and --quiet was not given (the caller
 * decides, so tests can drive it). Returns NULL when disabled. */
progress *progress_start(size_t total, bool enabled);

/* One more file done. Thread-safe; redraws at most ten times a second, and
 * not at all during the first quarter second, so quick runs print nothing. */
void progress_step(progress *p);

/* Erase the line (if one was drawn) and free. NULL is fine. */
void progress_finish(progress *p);

#endif
