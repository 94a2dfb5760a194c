/* Facts as text and back (JSON, jansson), by their description
 * (facts/fact_kinds.def): one array per kind under its array's name, one
 * object per fact with a key per field, and "format", which names the
 * description the text was written by. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "util/hash.h"
#include "util/xalloc.h"

/* The description, every token of it: any change to a kind or a field (one
 * more, a key renamed, another codec or type) makes another format, so facts
 * written by a gpulint of another description are never read as this one's.
 * What the extraction finds within the same description is covered by the
 * cache key instead (gpulint's own binary: extract/cache.c). */
static const char description[] =
#define FACT_KIND(type, array) "kind " #type " " #array "\n"
#define FACT_FIELD(ctype, codec, name, key) "field " #ctype " " #codec " " #name " " key "\n"
#define FACT_KIND_END "end\n"
#include "facts/fact_kinds.def"
    ;

static char format[65];
static pthread_once_t format_once = PTHREAD_ONCE_INIT;

static void hash_description(void)
{
    sha256_hex(description, sizeof description - 1, format);
}

/* The SHA-256 of the description; worker threads save and load at once. */
static const char *facts_format(void)
{
    pthread_once(&format_once, hash_description);
    return format;
}

/* ---- saving -------------------------------------------------------------- */

static json_t *loc_json(fact_loc l)
{
    json_t *a = json_array();
    json_array_append_new(a, json_integer((json_int_t)l.line));
    json_array_append_new(a, json_integer((json_int_t)l.col));
    return a;
}

/* NULL when jansson refuses one of the strings (see SAVE_TEXT). */
static json_t *strs_json(const fact_strs *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->n; i++) {
        json_t *item = json_string(s->items[i]);
        if (!item) {
            json_decref(a);
            return NULL;
        }
        json_array_append_new(a, item);
    }
    return a;
}

/* A field's JSON value, by codec. A string jansson refuses (not UTF-8)
 * leaves the field's key out, so facts_load rejects the text rather than
 * read back less than was saved. */
#define SAVE_TEXT(v) json_string(v)
#define SAVE_TEXT_OR_NULL(v) ((v) ? json_string(v) : json_null())
#define SAVE_TEXTS(v) strs_json(&(v))
#define SAVE_LOC(v) loc_json(v)
#define SAVE_INT(v) json_integer((json_int_t)(v))
#define SAVE_BOOL(v) json_boolean(v)

char *facts_save(const file_facts *f)
{
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string(facts_format()));
#define FACT_KIND(type, array)                                                 \
    {                                                                          \
        json_t *kind_facts = json_array();                                     \
        json_object_set_new(root, #array, kind_facts);                         \
        for (size_t i = 0; i < f->n_##array; i++) {                            \
            const type *x = &f->array[i];                                      \
            json_t *o = json_object();                                         \
            json_array_append_new(kind_facts, o);
#define FACT_FIELD(ctype, codec, name, key) json_object_set_new(o, key, SAVE_##codec(x->name));
#define FACT_KIND_END                                                          \
        }                                                                      \
    }
#include "facts/fact_kinds.def"
    char *text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    if (!text) {
        fputs("gpulint: internal error: out of memory\n", stderr);
        exit(3);
    }
    return text;
}

/* ---- loading ------------------------------------------------------------- */

/* Whether every field read so far was there with its type. */
typedef struct {
    bool ok;
} reader;

static char *take_text(reader *r, json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s) {
        r->ok = false;
        return xstrdup("");
    }
    return xstrdup(s);
}

static char *take_text_or_null(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? xstrdup(s) : NULL;
}

static long long take_int(reader *r, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        r->ok = false;
    return json_integer_value(v);
}

static bool take_bool(reader *r, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_boolean(v))
        r->ok = false;
    return json_is_true(v);
}

static fact_loc take_loc(reader *r, json_t *o, const char *key)
{
    json_t *a = json_object_get(o, key);
    fact_loc l = { 0, 0 };
    if (!json_is_array(a) || json_array_size(a) != 2) {
        r->ok = false;
        return l;
    }
    l.line = (unsigned)json_integer_value(json_array_get(a, 0));
    l.col = (unsigned)json_integer_value(json_array_get(a, 1));
    return l;
}

static fact_strs take_texts(reader *r, json_t *o, const char *key)
{
    fact_strs s = { 0 };
    json_t *a = json_object_get(o, key);
    if (!json_is_array(a)) {
        r->ok = false;
        return s;
    }
    s.n = json_array_size(a);
    s.items = s.n ? xcalloc(s.n, sizeof *s.items) : NULL;
    for (size_t i = 0; i < s.n; i++) {
        const char *text = json_string_value(json_array_get(a, i));
        s.items[i] = xstrdup(text ? text : "");
        r->ok &= text != NULL;
    }
    return s;
}

/* Read a field of object o into `field`, by codec. */
#define LOAD_TEXT(ctype, field, key) field = take_text(&r, o, key)
#define LOAD_TEXT_OR_NULL(ctype, field, key) field = take_text_or_null(o, key)
#define LOAD_TEXTS(ctype, field, key) field = take_texts(&r, o, key)
#define LOAD_LOC(ctype, field, key) field = take_loc(&r, o, key)
#define LOAD_INT(ctype, field, key) field = (ctype)take_int(&r, o, key)
#define LOAD_BOOL(ctype, field, key) field = take_bool(&r, o, key)

file_facts *facts_load(const char *text, char **error)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    const char *format = json_string_value(json_object_get(root, "format"));
    if (!root || !format || strcmp(format, facts_format()) != 0) {
        *error = xasprintf("facts: %s", root ? "unknown format" : jerr.text);
        json_decref(root);
        return NULL;
    }
    reader r = { .ok = true };
    file_facts *f = xcalloc(1, sizeof *f);
    /* A kind's array may be absent (no facts of it); its elements are
     * allocated zeroed, so a fact that fails to load halfway frees cleanly. */
#define FACT_KIND(type, array)                                                 \
    {                                                                          \
        json_t *kind_facts = json_object_get(root, #array);                    \
        f->n_##array = json_array_size(kind_facts);                            \
        f->array = f->n_##array ? xcalloc(f->n_##array, sizeof *f->array) : NULL; \
        for (size_t i = 0; i < f->n_##array; i++) {                            \
            json_t *o = json_array_get(kind_facts, i);                         \
            type *x = &f->array[i];
#define FACT_FIELD(ctype, codec, name, key) LOAD_##codec(ctype, x->name, key);
#define FACT_KIND_END                                                          \
        }                                                                      \
    }
#include "facts/fact_kinds.def"
    json_decref(root);
    if (!r.ok) {
        facts_free(f);
        *error = xstrdup("facts: a field is missing or has the wrong type");
        return NULL;
    }
    return f;
}
