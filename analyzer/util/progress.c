#define _POSIX_C_SOURCE 200809L
#include "util/progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/xalloc.h"

struct progress {
    size_t total, done;
    double started, last_drawn;
    bool drawn;
    pthread_mutex_t lock;
};

static const double quiet_start_s = 0.25, redraw_every_s = 0.1;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

progress *progress_start(size_t total, bool enabled)
{
    if (!enabled || total < 2)
        return NULL;
    progress *p = xcalloc(1, sizeof *p);
    p->total = total;
    p->started = now_s();
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

void progress_step(progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->done++;
    double t = now_s(), elapsed = t - p->started;
    if (elapsed >= quiet_start_s && t - p->last_drawn >= redraw_every_s) {
        /* \r then clear to the end of the line: the count only grows, but a
         * terminal resize can leave debris. */
        fprintf(stderr, "\rgpulint: %zu/%zu files, %.1f s\033[K", p->done, p->total, elapsed);
        fflush(stderr);
        p->last_drawn = t;
        p->drawn = true;
    }
    pthread_mutex_unlock(&p->lock);
}

void progress_finish(progress *p)
{
    if (!p)
        return;
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
}
