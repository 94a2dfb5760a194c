#define _GNU_SOURCE
#include "diag/diag.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct diag_sink {
    pthread_mutex_t lock;   /* extraction workers report concurrently */
    diag_finding *items;
    size_t n, cap;
};

diag_sink *diag_sink_new(void)
{
    diag_sink *sink = xcalloc(1, sizeof *sink);
    pthread_mutex_init(&sink->lock, NULL);
    return sink;
}

static void finding_free(diag_finding *f)
{
    free(f->rule);
    free(f->file);
    free(f->message);
    free(f->suppress_reason);
}

void diag_sink_free(diag_sink *sink)
{
    if (!sink)
        return;
    for (size_t i = 0; i < sink->n; i++)
        finding_free(&sink->items[i]);
    free(sink->items);
    pthread_mutex_destroy(&sink->lock);
    free(sink);
}

void diag_vreport(diag_sink *sink, const char *rule, const char *file,
                  unsigned line, unsigned col, const char *fmt, va_list ap)
{
    char *message;
    if (vasprintf(&message, fmt, ap) < 0)
        message = xstrdup("(message lost: out of memory)");
    diag_finding f = {
        .rule = xstrdup(rule),
        .file = xstrdup(file),
        .message = message,
        .line = line,
        .col = col,
    };
    pthread_mutex_lock(&sink->lock);
    if (sink->n == sink->cap) {
        sink->cap = sink->cap ? sink->cap * 2 : 64;
        sink->items = xrealloc(sink->items, sink->cap * sizeof *sink->items);
    }
    sink->items[sink->n++] = f;
    pthread_mutex_unlock(&sink->lock);
}

void diag_report(diag_sink *sink, const char *rule, const char *file,
                 unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(sink, rule, file, line, col, fmt, ap);
    va_end(ap);
}

diag_finding *diag_findings(diag_sink *sink, size_t *count)
{
    *count = sink->n;
    return sink->items;
}

void diag_filter(diag_sink *sink, bool (*keep)(const diag_finding *f, void *ctx), void *ctx)
{
    size_t out = 0;
    for (size_t i = 0; i < sink->n; i++) {
        if (keep(&sink->items[i], ctx))
            sink->items[out++] = sink->items[i];
        else
            finding_free(&sink->items[i]);
    }
    sink->n = out;
}

static int compare_findings(const void *pa, const void *pb)
{
    const diag_finding *a = pa, *b = pb;
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    if ((c = strcmp(a->rule, b->rule)))
        return c;
    return strcmp(a->message, b->message);
}

void diag_sort_unique(diag_sink *sink)
{
    if (sink->n == 0)
        return;
    qsort(sink->items, sink->n, sizeof *sink->items, compare_findings);
    size_t out = 1;
    for (size_t i = 1; i < sink->n; i++) {
        if (compare_findings(&sink->items[out - 1], &sink->items[i]) == 0)
            finding_free(&sink->items[i]);
        else
            sink->items[out++] = sink->items[i];
    }
    sink->n = out;
}
