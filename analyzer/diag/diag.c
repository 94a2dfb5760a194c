#define _GNU_SOURCE
#include "diag/diag.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct diag_sink {
    pthread_mutex_t lock;   /* diag_report is thread-safe (diag/diag.h) */
    diag_finding *items;
    size_t n, cap;
};

diag_sink *diag_sink_new(void)
{
    diag_sink *sink = xcalloc(1, sizeof *sink);
    pthread_mutex_init(&sink->lock, NULL);
    return sink;
}

void diag_finding_free(diag_finding *f)
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
    diag_list left = {.items = sink->items, .n = sink->n};
    diag_list_free(&left);
    pthread_mutex_destroy(&sink->lock);
    free(sink);
}

static void sink_push(diag_sink *sink, diag_finding f)
{
    pthread_mutex_lock(&sink->lock);
    if (sink->n == sink->cap) {
        sink->cap = sink->cap ? sink->cap * 2 : 64;
        sink->items = xrealloc(sink->items, sink->cap * sizeof *sink->items);
    }
    sink->items[sink->n++] = f;
    pthread_mutex_unlock(&sink->lock);
}

void diag_vreport(diag_sink *sink, const char *rule, const char *file,
                  unsigned line, unsigned col, const char *fmt, va_list ap)
{
    char *message;
    if (vasprintf(&message, fmt, ap) < 0)
        message = xstrdup("(message lost: out of memory)");
    sink_push(sink, (diag_finding){
        .rule = xstrdup(rule),
        .file = xstrdup(file),
        .message = message,
        .line = line,
        .col = col,
    });
}

void diag_report(diag_sink *sink, const char *rule, const char *file,
                 unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(sink, rule, file, line, col, fmt, ap);
    va_end(ap);
}

void diag_add_copy(diag_sink *sink, const diag_finding *f)
{
    diag_finding copy = *f;
    copy.rule = xstrdup(f->rule);
    copy.file = xstrdup(f->file);
    copy.message = xstrdup(f->message);
    copy.suppress_reason = f->suppress_reason ? xstrdup(f->suppress_reason) : NULL;
    sink_push(sink, copy);
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

diag_list diag_sink_take(diag_sink *sink)
{
    diag_list list = {.items = sink->items, .n = sink->n};
    sink->items = NULL;
    sink->n = sink->cap = 0;
    if (list.n == 0)
        return list;
    if (list.n)   /* qsort's array may not be NULL, even empty (UBSan) */
        qsort(list.items, list.n, sizeof *list.items, compare_findings);
    size_t out = 1;
    for (size_t i = 1; i < list.n; i++) {
        if (compare_findings(&list.items[out - 1], &list.items[i]) == 0)
            diag_finding_free(&list.items[i]);
        else
            list.items[out++] = list.items[i];
    }
    list.n = out;
    return list;
}

void diag_list_free(diag_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        diag_finding_free(&list->items[i]);
    free(list->items);
    list->items = NULL;
    list->n = 0;
}
