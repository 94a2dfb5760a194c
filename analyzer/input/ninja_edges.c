#include "input/ninja_edges.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/files.h"
#include "util/xalloc.h"

/* A manifest over this is not one a build wrote for a tree gpulint reads
 * (nccl's, of 1,000 targets, is a few MB). */
#define MANIFEST_BYTES ((size_t)256 << 20)

typedef struct {
    const char *p, *end;
    size_t line;
} cursor;

/* Past spaces, and "$\n" continuations with the next line's indent. */
static void skip_blanks(cursor *c)
{
    for (;;) {
        if (c->p < c->end && *c->p == ' ') {
            c->p++;
        } else if (c->end - c->p >= 2 && c->p[0] == '$' && c->p[1] == '\n') {
            c->p += 2;
            c->line++;
        } else if (c->end - c->p >= 3 && c->p[0] == '$' && c->p[1] == '\r' && c->p[2] == '\n') {
            c->p += 3;
            c->line++;
        } else {
            return;
        }
    }
}

/* One path: up to an unescaped space, ':', '|' or the line's end; NULL
 * (nothing consumed) at one of those. */
static char *path_word(cursor *c)
{
    byte_buf word = {0};
    while (c->p < c->end) {
        char ch = *c->p;
        if (ch == ' ' || ch == ':' || ch == '|' || ch == '\n' || ch == '\r')
            break;
        if (ch == '$' && c->end - c->p >= 2) {
            char next = c->p[1];
            if (next == ' ' || next == ':' || next == '$') {
                buf_append(&word, &next, 1);
                c->p += 2;
                continue;
            }
            if (next == '\n' || next == '\r')
                break;   /* a continuation ends the word */
        }
        buf_append(&word, c->p, 1);
        c->p++;
    }
    if (!word.data)
        return NULL;
    char *s = xstrndup(word.data, word.len);
    buf_free(&word);
    return s;
}

/* Past the rest of the logical line (continuations included). */
static void skip_line(cursor *c)
{
    while (c->p < c->end && *c->p != '\n') {
        if (*c->p == '$' && c->end - c->p >= 2) {
            bool crlf = c->p[1] == '\r' && c->end - c->p >= 3 && c->p[2] == '\n';
            if (c->p[1] == '\n' || crlf)
                c->line++;
            c->p += crlf ? 3 : 2;   /* an escape, or a continuation */
            continue;
        }
        c->p++;
    }
    if (c->p < c->end) {
        c->p++;
        c->line++;
    }
}

static bool at_line_end(const cursor *c)
{
    return c->p >= c->end || *c->p == '\n' || *c->p == '\r';
}

/* The build statement after "build ": false at a syntax error. */
static bool read_build(cursor *c, ninja_edge *e)
{
    for (;;) {
        skip_blanks(c);
        if (at_line_end(c))
            return false;
        if (*c->p == ':')
            break;
        if (*c->p == '|') {   /* implicit outputs follow */
            c->p++;
            continue;
        }
        char *w = path_word(c);
        if (!w)
            return false;
        *XPUSH(e->outputs, e->noutputs) = w;
    }
    c->p++;   /* ':' */
    skip_blanks(c);
    char *rule = path_word(c);
    if (!rule)
        return false;
    free(rule);
    for (;;) {
        skip_blanks(c);
        if (at_line_end(c))
            break;
        if (*c->p == '|') {
            if (c->end - c->p >= 2 && (c->p[1] == '|' || c->p[1] == '@'))
                break;   /* order-only inputs, validations: no part of the step */
            c->p++;
            continue;    /* implicit inputs follow */
        }
        char *w = path_word(c);
        if (!w) {
            c->p++;   /* a stray ':' */
            continue;
        }
        *XPUSH(e->inputs, e->ninputs) = w;
    }
    return e->noutputs > 0;
}

int ninja_edges_load(const char *path, ninja_edges *out, char **error)
{
    memset(out, 0, sizeof *out);
    size_t len;
    char *text = files_load_text(path, "Ninja build manifest", MANIFEST_BYTES, &len, error);
    if (!text)
        return -1;
    cursor c = {.p = text, .end = text + len, .line = 1};
    int rc = 0;
    while (c.p < c.end) {
        if (c.end - c.p > 6 && memcmp(c.p, "build ", 6) == 0) {
            size_t line = c.line;
            c.p += 6;
            ninja_edge e = {0};
            if (!read_build(&c, &e)) {
                *error = xasprintf("%s:%zu: error: the Ninja build manifest has a build "
                                   "statement with no outputs, no ':' or no rule", path, line);
                str_array_free(e.outputs, e.noutputs);
                str_array_free(e.inputs, e.ninputs);
                rc = -1;
                break;
            }
            *XPUSH(out->edges, out->n) = e;
        }
        skip_line(&c);
    }
    free(text);
    if (rc != 0)
        ninja_edges_free(out);
    return rc;
}

void ninja_edges_free(ninja_edges *edges)
{
    for (size_t i = 0; i < edges->n; i++) {
        str_array_free(edges->edges[i].outputs, edges->edges[i].noutputs);
        str_array_free(edges->edges[i].inputs, edges->edges[i].ninputs);
    }
    free(edges->edges);
    memset(edges, 0, sizeof *edges);
}
