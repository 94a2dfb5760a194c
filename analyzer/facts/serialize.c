/* Facts as text and back (JSON: written by jansson, read by the reader
 * below), by their description (facts/fact_kinds.def): one array per kind
 * under its array's name, one object per fact with a key per field, and
 * "format", which names the description the text was written by. */
#include <jansson.h>
#include <limits.h>
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

/* Facts are read by a reader of their own, not by jansson: a warm run loads
 * every file's facts, and jansson's tree of hashed objects, built and freed
 * again for each, was 45 % of a warm run's instructions over this
 * repository (docs/performance.md). The reader fills the structs as it goes
 * and takes any JSON jansson would: members in any order, whitespace,
 * every string escape; unknown keys are skipped. It refuses what the old
 * reader refused: text that is not JSON, another format, a field missing
 * or of another type, a string that is not UTF-8. */
typedef struct {
    const char *p;
    bool ok;
} reader;

#define MAX_SKIP_DEPTH 64

static void skip_blanks(reader *r)
{
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
        r->p++;
}

/* Consume c (after blanks), or fail. */
static bool eat(reader *r, char c)
{
    skip_blanks(r);
    if (r->ok && *r->p == c) {
        r->p++;
        return true;
    }
    r->ok = false;
    return false;
}

/* Consume c (after blanks) when it is next. */
static bool next_is(reader *r, char c)
{
    skip_blanks(r);
    if (*r->p != c)
        return false;
    r->p++;
    return true;
}

static bool eat_word(reader *r, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(r->p, word, n) != 0) {
        r->ok = false;
        return false;
    }
    r->p += n;
    return true;
}

/* Whether s[0..n) is UTF-8 as jansson accepts it: no overlong forms, no
 * surrogates, nothing past U+10FFFF. */
static bool is_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (!len || i + len > n)
            return false;
        unsigned long v = len == 1 ? c : c & (0x7f >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            v = v << 6 | (s[i + k] & 0x3f);
        }
        static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
        if (v < least[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
            return false;
        i += len;
    }
    return true;
}

static void put_utf8(byte_buf *out, unsigned long v)
{
    char b[4];
    size_t n;
    if (v < 0x80) {
        b[0] = (char)v;
        n = 1;
    } else if (v < 0x800) {
        b[0] = (char)(0xc0 | v >> 6);
        b[1] = (char)(0x80 | (v & 0x3f));
        n = 2;
    } else if (v < 0x10000) {
        b[0] = (char)(0xe0 | v >> 12);
        b[1] = (char)(0x80 | (v >> 6 & 0x3f));
        b[2] = (char)(0x80 | (v & 0x3f));
        n = 3;
    } else {
        b[0] = (char)(0xf0 | v >> 18);
        b[1] = (char)(0x80 | (v >> 12 & 0x3f));
        b[2] = (char)(0x80 | (v >> 6 & 0x3f));
        b[3] = (char)(0x80 | (v & 0x3f));
        n = 4;
    }
    buf_append(out, b, n);
}

static bool hex4(const char *s, unsigned long *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return false;
        *v = *v << 4 | (unsigned long)d;
    }
    return true;
}

/* The escapes of a string whose plain start [start, r->p) is read: decoded
 * up to the closing quote. NULL (r->ok false) for a bad escape or \u0000,
 * which a C string cannot hold. */
static char *read_escaped(reader *r, const char *start)
{
    byte_buf out = {0};
    buf_append(&out, start, (size_t)(r->p - start));
    for (;;) {
        const char *run = r->p;
        while ((unsigned char)*r->p >= 0x20 && *r->p != '"' && *r->p != '\\')
            r->p++;
        buf_append(&out, run, (size_t)(r->p - run));
        if (*r->p == '"') {
            r->p++;
            buf_append(&out, "", 1);
            if (!is_utf8((const unsigned char *)out.data, out.len - 1))
                break;
            return out.data;
        }
        if (*r->p != '\\')
            break;   /* a control character, or the end of the text */
        char e = r->p[1];
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *at = e ? strchr(from, e) : NULL;
        if (at) {
            buf_append(&out, &to[at - from], 1);
            r->p += 2;
            continue;
        }
        unsigned long v, low;
        if (e != 'u' || !hex4(r->p + 2, &v))
            break;
        r->p += 6;
        if (v >= 0xd800 && v <= 0xdbff) {
            if (r->p[0] != '\\' || r->p[1] != 'u' || !hex4(r->p + 2, &low) || low < 0xdc00 ||
                low > 0xdfff)
                break;
            r->p += 6;
            v = 0x10000 + ((v - 0xd800) << 10) + (low - 0xdc00);
        } else if ((v >= 0xdc00 && v <= 0xdfff) || v == 0) {
            break;
        }
        put_utf8(&out, v);
    }
    buf_free(&out);
    r->ok = false;
    return NULL;
}

/* A JSON string (after blanks), malloc'd; NULL and r->ok false if none. */
static char *read_string(reader *r)
{
    if (!eat(r, '"'))
        return NULL;
    const char *start = r->p;
    bool ascii = true;
    while ((unsigned char)*r->p >= 0x20 && *r->p != '"' && *r->p != '\\')
        ascii &= (unsigned char)*r->p++ < 0x80;
    if (*r->p != '"')
        return read_escaped(r, start);
    size_t n = (size_t)(r->p - start);
    r->p++;
    if (!ascii && !is_utf8((const unsigned char *)start, n)) {
        r->ok = false;
        return NULL;
    }
    return xstrndup(start, n);
}

/* Whether the next string (after blanks) is exactly key, consuming it. */
static bool read_key(reader *r, const char **key, size_t *len)
{
    if (!eat(r, '"'))
        return false;
    *key = r->p;
    while ((unsigned char)*r->p >= 0x20 && *r->p != '"' && *r->p != '\\')
        r->p++;
    if (*r->p != '"') {
        /* An escaped key is none of ours: read it to skip it. */
        r->p = *key - 1;
        free(read_string(r));
        *key = "";
        *len = 0;
        return r->ok && eat(r, ':');
    }
    *len = (size_t)(r->p - *key);
    r->p++;
    return eat(r, ':');
}

static bool key_is(const char *key, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(key, want, len) == 0;
}

/* A JSON integer that fits in 64 signed bits, as jansson reads one: a
 * number with a fraction or an exponent is not an integer. */
static long long read_int(reader *r)
{
    skip_blanks(r);
    bool negative = *r->p == '-';
    r->p += negative;
    if (*r->p < '0' || *r->p > '9') {
        r->ok = false;
        return 0;
    }
    unsigned long long v = 0, limit = negative ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    for (; *r->p >= '0' && *r->p <= '9'; r->p++) {
        unsigned d = (unsigned)(*r->p - '0');
        if (v > (limit - d) / 10) {
            r->ok = false;
            return 0;
        }
        v = v * 10 + d;
    }
    if (*r->p == '.' || *r->p == 'e' || *r->p == 'E') {
        r->ok = false;
        return 0;
    }
    return negative ? (long long)(0 - v) : (long long)v;
}

static bool read_bool(reader *r)
{
    skip_blanks(r);
    if (*r->p == 't')
        return eat_word(r, "true");
    eat_word(r, "false");
    return false;
}

static void skip_value(reader *r, int depth);

static void skip_members(reader *r, int depth, char close, bool keyed)
{
    if (next_is(r, close))
        return;
    do {
        if (keyed) {
            free(read_string(r));
            eat(r, ':');
        }
        skip_value(r, depth + 1);
    } while (r->ok && next_is(r, ','));
    eat(r, close);
}

/* Any JSON value, read and dropped (a member of a key that is none of ours). */
static void skip_value(reader *r, int depth)
{
    skip_blanks(r);
    if (depth > MAX_SKIP_DEPTH) {
        r->ok = false;
        return;
    }
    switch (*r->p) {
    case '"': free(read_string(r)); break;
    case '{': r->p++; skip_members(r, depth, '}', true); break;
    case '[': r->p++; skip_members(r, depth, ']', false); break;
    case 't': eat_word(r, "true"); break;
    case 'f': eat_word(r, "false"); break;
    case 'n': eat_word(r, "null"); break;
    default:
        /* A number: an integer, or one with a fraction and an exponent. */
        if (*r->p == '-')
            r->p++;
        if (*r->p < '0' || *r->p > '9') {
            r->ok = false;
            return;
        }
        while ((*r->p >= '0' && *r->p <= '9') || *r->p == '.' || *r->p == 'e' ||
               *r->p == 'E' || *r->p == '+' || *r->p == '-')
            r->p++;
    }
}

static char *take_text(reader *r)
{
    char *s = read_string(r);
    return s ? s : xstrdup("");
}

/* A string, or NULL for null or any other value (as before: only a string
 * is a text). */
static char *take_text_or_null(reader *r)
{
    skip_blanks(r);
    if (*r->p == '"')
        return read_string(r);
    skip_value(r, 0);
    return NULL;
}

static fact_loc take_loc(reader *r)
{
    fact_loc l = {0, 0};
    if (!eat(r, '['))
        return l;
    l.line = (unsigned)read_int(r);
    eat(r, ',');
    l.col = (unsigned)read_int(r);
    eat(r, ']');
    return l;
}

static fact_strs take_texts(reader *r)
{
    fact_strs s = {0};
    if (!eat(r, '[') || next_is(r, ']'))
        return s;
    size_t cap = 0;
    do {
        if (s.n == cap)
            s.items = xrealloc(s.items, (cap = cap ? 2 * cap : 4) * sizeof *s.items);
        s.items[s.n++] = take_text(r);
    } while (r->ok && next_is(r, ','));
    eat(r, ']');
    return s;
}

/* Read a field of fact x into `field`, by codec. */
#define LOAD_TEXT(ctype, field) field = take_text(r)
#define LOAD_TEXT_OR_NULL(ctype, field) field = take_text_or_null(r)
#define LOAD_TEXTS(ctype, field) field = take_texts(r)
#define LOAD_LOC(ctype, field) field = take_loc(r)
#define LOAD_INT(ctype, field) field = (ctype)read_int(r)
#define LOAD_BOOL(ctype, field) field = read_bool(r)
/* Fields a fact may lack (a missing one reads as NULL). */
#define OPTIONAL_TEXT 0
#define OPTIONAL_TEXT_OR_NULL 1
#define OPTIONAL_TEXTS 0
#define OPTIONAL_LOC 0
#define OPTIONAL_INT 0
#define OPTIONAL_BOOL 0

/* The fields each kind's facts must have: bit i for its i-th field. */
#define FACT_KIND(type, array)                                                 \
    static unsigned long long required_##array(void)                           \
    {                                                                          \
        unsigned long long mask = 0, bit = 1;
#define FACT_FIELD(ctype, codec, name, key)                                    \
        mask |= OPTIONAL_##codec ? 0 : bit;                                    \
        bit <<= 1;
#define FACT_KIND_END                                                          \
        return mask;                                                           \
    }
#include "facts/fact_kinds.def"

/* One fact of each kind: load_<array>_fact reads an object's members into x
 * (zeroed); each field at most once, bit i of *seen for the i-th. */
#define FACT_KIND(type, array)                                                 \
    static void load_##array##_member(reader *r, type *x, const char *key,    \
                                      size_t len, unsigned long long *seen)    \
    {                                                                          \
        unsigned long long bit = 1;
#define FACT_FIELD(ctype, codec, name, key_text)                               \
        if (key_is(key, len, key_text)) {                                      \
            if (*seen & bit) {                                                 \
                r->ok = false;   /* twice: the first one would leak */         \
                return;                                                        \
            }                                                                  \
            *seen |= bit;                                                      \
            LOAD_##codec(ctype, x->name);                                      \
            return;                                                            \
        }                                                                      \
        bit <<= 1;
#define FACT_KIND_END                                                          \
        skip_value(r, 0);                                                      \
    }
#include "facts/fact_kinds.def"

/* The array of a kind: its facts appended to f's, which counts every fact
 * begun, so that facts_free frees a half-read one. */
#define FACT_KIND(type, array)                                                 \
    static void load_##array(reader *r, file_facts *f)                         \
    {                                                                          \
        if (f->n_##array || !eat(r, '[')) {                                    \
            r->ok = false;   /* a kind twice: its facts would be lost */       \
            return;                                                            \
        }                                                                      \
        if (next_is(r, ']'))                                                   \
            return;                                                            \
        size_t cap = 0;                                                        \
        do {                                                                   \
            if (f->n_##array == cap) {                                         \
                cap = cap ? 2 * cap : 4;                                       \
                f->array = xrealloc(f->array, cap * sizeof *f->array);         \
            }                                                                  \
            type *x = &f->array[f->n_##array++];                               \
            memset(x, 0, sizeof *x);                                           \
            unsigned long long seen = 0;                                       \
            if (!eat(r, '{'))                                                  \
                return;                                                        \
            if (!next_is(r, '}')) {                                            \
                do {                                                           \
                    const char *key;                                           \
                    size_t len;                                                \
                    if (read_key(r, &key, &len))                               \
                        load_##array##_member(r, x, key, len, &seen);          \
                } while (r->ok && next_is(r, ','));                            \
                eat(r, '}');                                                   \
            }                                                                  \
            unsigned long long required = required_##array();                  \
            if ((seen & required) != required)                                 \
                r->ok = false;                                                 \
        } while (r->ok && next_is(r, ','));                                    \
        eat(r, ']');                                                           \
    }
#include "facts/fact_kinds.def"

file_facts *facts_load(const char *text, char **error)
{
    reader state = {.p = text, .ok = true}, *r = &state;
    file_facts *f = xcalloc(1, sizeof *f);
    bool format_known = false;
    if (eat(r, '{') && !next_is(r, '}')) {
        do {
            const char *key;
            size_t len;
            if (!read_key(r, &key, &len))
                break;
            if (key_is(key, len, "format")) {
                skip_blanks(r);
                char *format = *r->p == '"' ? read_string(r) : NULL;
                if (!format && r->ok)
                    skip_value(r, 0);
                format_known = format && strcmp(format, facts_format()) == 0;
                free(format);
                if (!format_known)
                    break;
            }
#define FACT_KIND(type, array) else if (key_is(key, len, #array)) load_##array(r, f);
#include "facts/fact_kinds.def"
            else
                skip_value(r, 0);
        } while (r->ok && next_is(r, ','));
        if (r->ok && format_known)
            eat(r, '}');
    }
    if (r->ok && format_known) {
        skip_blanks(r);
        r->ok = *r->p == '\0';
    }
    if (!r->ok || !format_known) {
        facts_free(f);
        /* Which of these: the tests (tests/analyzer/unit/facts_serialize.c). */
        if (!r->ok)
            *error = xasprintf("facts: %s", format_known ? "a field is missing or has the wrong type"
                                                         : "not the JSON facts_save writes");
        else
            *error = xstrdup("facts: unknown format");
        return NULL;
    }
    return f;
}
