/* Facts on disk: facts_save/facts_load (JSON, jansson) and the per-file
 * facts cache extraction uses, so a commit that changes one file of thirty
 * parses one file.
 *
 * A file's facts depend on more than its own text: on the headers it
 * includes, its compiler arguments, the CUDA installation and libclang, and
 * on gpulint itself. The cache key covers what is known before parsing (the
 * text, the path, the arguments, gpulint's identity); the entry lists what
 * the parse read besides (every included file, with its content hash when it
 * is part of the snapshot, else its stat fingerprint), and an entry is used
 * only when all of those are unchanged. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extract/internal.h"
#include "util/hash.h"

#define FACTS_FORMAT 6

/* An entry not used for this long goes when its directory is next written:
 * old file versions would otherwise pile up, one entry per file per commit. */
#define ENTRY_LIFETIME_S (14 * 24 * 3600)

/* ---- facts <-> JSON ---------------------------------------------------- */

static json_t *loc_json(fact_loc l)
{
    return json_pack("[ii]", (json_int_t)l.line, (json_int_t)l.col);
}

static json_t *strs_json(const fact_strs *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->n; i++)
        json_array_append_new(a, json_string(s->items[i]));
    return a;
}

char *facts_save(const file_facts *f)
{
    json_t *fns = json_array(), *launches = json_array(), *copies = json_array(),
           *calls = json_array(), *loops = json_array(), *docs = json_array(),
           *unchecked = json_array(), *hidden = json_array(), *errors = json_array();
    for (size_t i = 0; i < f->n_functions; i++) {
        const fact_function *x = &f->functions[i];
        json_array_append_new(fns, json_pack(
            "{ss ss so so so ss so si sb sb sb sb sb sb}", "name", x->name, "usr", x->usr,
            "params", strs_json(&x->params), "tparams", strs_json(&x->type_param_spellings),
            "tnames", strs_json(&x->type_param_names), "result", x->result,
            "loc", loc_json(x->loc),
            "exec", (int)x->exec, "definition", x->is_definition, "static", x->is_static,
            "template", x->is_template, "no_prototype", x->no_prototype,
            "c_linkage", x->is_c_linkage, "hot", x->is_hot_annotated));
    }
    for (size_t i = 0; i < f->n_launches; i++) {
        const fact_launch *x = &f->launches[i];
        json_array_append_new(launches, json_pack(
            "{si ss ss so so sI sb}", "kind", (int)x->kind, "kernel", x->kernel_name,
            "usr", x->kernel_usr, "loc", loc_json(x->loc), "args", strs_json(&x->arg_types),
            "constant_args", (json_int_t)x->constant_args, "args_known", x->args_known));
    }
    for (size_t i = 0; i < f->n_copies; i++) {
        const fact_copy *x = &f->copies[i];
        json_array_append_new(copies, json_pack("{ss so si sI}", "callee", x->callee,
                                                "loc", loc_json(x->loc), "kind", (int)x->kind,
                                                "value", (json_int_t)x->kind_value));
    }
    for (size_t i = 0; i < f->n_calls; i++) {
        const fact_call *x = &f->calls[i];
        json_array_append_new(calls, json_pack("{ss ss ss so sI sI}", "caller", x->caller_usr,
                                               "callee", x->callee_usr, "name", x->callee_name,
                                               "loc", loc_json(x->loc), "floating_template_args",
                                               (json_int_t)x->floating_template_args,
                                               "floating_class_args",
                                               (json_int_t)x->floating_class_args));
    }
    for (size_t i = 0; i < f->n_float_loops; i++)
        json_array_append_new(loops, json_pack("{ss so sI sI ss?}", "function",
                                               f->float_loops[i].function_usr, "loc",
                                               loc_json(f->float_loops[i].loc), "template_params",
                                               (json_int_t)f->float_loops[i].template_params,
                                               "class_params",
                                               (json_int_t)f->float_loops[i].class_params,
                                               "via", f->float_loops[i].via));
    for (size_t i = 0; i < f->n_doc_params; i++)
        json_array_append_new(docs, json_pack("{ss ss so}", "function",
                                              f->doc_params[i].function_name, "param",
                                              f->doc_params[i].param_name, "loc",
                                              loc_json(f->doc_params[i].loc)));
    for (size_t i = 0; i < f->n_unchecked; i++)
        json_array_append_new(unchecked, json_pack("{ss so}", "callee", f->unchecked[i].callee,
                                                   "loc", loc_json(f->unchecked[i].loc)));
    for (size_t i = 0; i < f->n_hidden_names; i++)
        json_array_append_new(hidden, json_pack("{ss so}", "name", f->hidden_names[i].name,
                                                "loc", loc_json(f->hidden_names[i].loc)));
    for (size_t i = 0; i < f->n_parse_errors; i++)
        json_array_append_new(errors, json_pack("{ss so}", "message",
                                                f->parse_errors[i].message, "loc",
                                                loc_json(f->parse_errors[i].loc)));
    json_t *root = json_pack("{si so so so so so so so so so}", "format", FACTS_FORMAT,
                             "functions", fns, "launches", launches, "copies", copies,
                             "calls", calls, "float_loops", loops, "doc_params", docs,
                             "unchecked", unchecked, "hidden_names", hidden,
                             "parse_errors", errors);
    char *text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    if (!text) {
        fputs("gpulint: internal error: out of memory\n", stderr);
        exit(3);
    }
    return text;
}

typedef struct {
    bool ok;
} reader;

static char *take_string(reader *r, json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s) {
        r->ok = false;
        return xstrdup("");
    }
    return xstrdup(s);
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

static fact_loc take_loc(reader *r, json_t *o)
{
    json_t *a = json_object_get(o, "loc");
    fact_loc l = { 0, 0 };
    if (!json_is_array(a) || json_array_size(a) != 2) {
        r->ok = false;
        return l;
    }
    l.line = (unsigned)json_integer_value(json_array_get(a, 0));
    l.col = (unsigned)json_integer_value(json_array_get(a, 1));
    return l;
}

static fact_strs take_strs(reader *r, json_t *o, const char *key)
{
    fact_strs s = { 0 };
    json_t *a = json_object_get(o, key);
    if (!json_is_array(a)) {
        r->ok = false;
        return s;
    }
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        const char *text = json_string_value(v);
        *FACT_PUSH(s.items, s.n) = xstrdup(text ? text : "");
        r->ok &= text != NULL;
    }
    return s;
}

/* Iterate the objects of array `key` of the root. */
#define EACH(root, key, item)                                                  \
    for (size_t idx_ = 0; idx_ < json_array_size(json_object_get(root, key)) && \
                          ((item) = json_array_get(json_object_get(root, key), idx_)); \
         idx_++)

file_facts *facts_load(const char *text, char **error)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    if (!root || json_integer_value(json_object_get(root, "format")) != FACTS_FORMAT) {
        *error = xasprintf("facts: %s", root ? "unknown format" : jerr.text);
        json_decref(root);
        return NULL;
    }
    reader r = { .ok = true };
    file_facts *f = xcalloc(1, sizeof *f);
    json_t *o;
    EACH(root, "functions", o) {
        fact_function *x = FACT_PUSH(f->functions, f->n_functions);
        memset(x, 0, sizeof *x);
        x->name = take_string(&r, o, "name");
        x->usr = take_string(&r, o, "usr");
        x->params = take_strs(&r, o, "params");
        x->type_param_spellings = take_strs(&r, o, "tparams");
        x->type_param_names = take_strs(&r, o, "tnames");
        x->result = take_string(&r, o, "result");
        x->loc = take_loc(&r, o);
        x->exec = (fact_exec)take_int(&r, o, "exec");
        x->is_definition = take_bool(&r, o, "definition");
        x->is_static = take_bool(&r, o, "static");
        x->is_template = take_bool(&r, o, "template");
        x->no_prototype = take_bool(&r, o, "no_prototype");
        x->is_c_linkage = take_bool(&r, o, "c_linkage");
        x->is_hot_annotated = take_bool(&r, o, "hot");
    }
    EACH(root, "launches", o) {
        fact_launch *x = FACT_PUSH(f->launches, f->n_launches);
        memset(x, 0, sizeof *x);
        x->kind = (fact_launch_kind)take_int(&r, o, "kind");
        x->kernel_name = take_string(&r, o, "kernel");
        x->kernel_usr = take_string(&r, o, "usr");
        x->loc = take_loc(&r, o);
        x->arg_types = take_strs(&r, o, "args");
        x->constant_args = (unsigned long long)take_int(&r, o, "constant_args");
        x->args_known = take_bool(&r, o, "args_known");
    }
    EACH(root, "copies", o) {
        fact_copy *x = FACT_PUSH(f->copies, f->n_copies);
        x->callee = take_string(&r, o, "callee");
        x->loc = take_loc(&r, o);
        x->kind = (fact_copy_kind)take_int(&r, o, "kind");
        x->kind_value = (long)take_int(&r, o, "value");
    }
    EACH(root, "calls", o) {
        fact_call *x = FACT_PUSH(f->calls, f->n_calls);
        x->caller_usr = take_string(&r, o, "caller");
        x->callee_usr = take_string(&r, o, "callee");
        x->callee_name = take_string(&r, o, "name");
        x->loc = take_loc(&r, o);
        x->floating_template_args =
            (unsigned long long)take_int(&r, o, "floating_template_args");
        x->floating_class_args = (unsigned long long)take_int(&r, o, "floating_class_args");
    }
    EACH(root, "float_loops", o) {
        fact_float_loop *x = FACT_PUSH(f->float_loops, f->n_float_loops);
        x->function_usr = take_string(&r, o, "function");
        x->loc = take_loc(&r, o);
        x->template_params = (unsigned long long)take_int(&r, o, "template_params");
        x->class_params = (unsigned long long)take_int(&r, o, "class_params");
        const char *via = json_string_value(json_object_get(o, "via"));
        x->via = via ? xstrdup(via) : NULL;
    }
    EACH(root, "doc_params", o) {
        fact_doc_param *x = FACT_PUSH(f->doc_params, f->n_doc_params);
        x->function_name = take_string(&r, o, "function");
        x->param_name = take_string(&r, o, "param");
        x->loc = take_loc(&r, o);
    }
    EACH(root, "unchecked", o) {
        fact_unchecked *x = FACT_PUSH(f->unchecked, f->n_unchecked);
        x->callee = take_string(&r, o, "callee");
        x->loc = take_loc(&r, o);
    }
    EACH(root, "hidden_names", o) {
        fact_hidden_name *x = FACT_PUSH(f->hidden_names, f->n_hidden_names);
        x->name = take_string(&r, o, "name");
        x->loc = take_loc(&r, o);
    }
    EACH(root, "parse_errors", o) {
        fact_parse_error *x = FACT_PUSH(f->parse_errors, f->n_parse_errors);
        x->message = take_string(&r, o, "message");
        x->loc = take_loc(&r, o);
    }
    json_decref(root);
    if (!r.ok) {
        facts_free(f);
        *error = xstrdup("facts: a field is missing or has the wrong type");
        return NULL;
    }
    return f;
}

/* ---- the cache ----------------------------------------------------------- */

char *facts_cache_key(const char *identity, const snapshot *snap, const source_file *src,
                      const gl_config *cfg)
{
    byte_buf b = { 0 };
    /* Every part ends with a NUL so that no two key materials run together. */
    buf_append(&b, identity, strlen(identity) + 1);
    buf_append(&b, src->abs_path, strlen(src->abs_path) + 1);
    const char *lang = src->lang == LANG_CUDA ? "cuda" : "c";
    buf_append(&b, lang, strlen(lang) + 1);
    buf_append(&b, snap->root ? snap->root : "", strlen(snap->root ? snap->root : "") + 1);
    for (size_t i = 0; cfg && i < cfg->include_dirs.n; i++)
        buf_append(&b, cfg->include_dirs.items[i], strlen(cfg->include_dirs.items[i]) + 1);
    buf_append(&b, "\n", 1);
    for (size_t i = 0; cfg && i < cfg->defines.n; i++)
        buf_append(&b, cfg->defines.items[i], strlen(cfg->defines.items[i]) + 1);
    buf_append(&b, "\n", 1);
    for (size_t i = 0; i < src->nargs; i++)
        buf_append(&b, src->args[i], strlen(src->args[i]) + 1);
    buf_append(&b, "\n", 1);
    buf_append(&b, src->text, src->len);
    char hex[65];
    sha256_hex(b.data, b.len, hex);
    buf_free(&b);
    return xstrdup(hex);
}

static char *entry_path(const char *dir, const char *key)
{
    return xasprintf("%s/%.2s/%s.json", dir, key, key + 2);
}

static const source_file *snapshot_file_at(const snapshot *snap, const char *abs_path)
{
    for (size_t i = 0; i < snap->nfiles; i++)
        if (strcmp(snap->files[i].abs_path, abs_path) == 0)
            return &snap->files[i];
    for (size_t i = 0; i < snap->ncontext; i++)
        if (strcmp(snap->context[i].abs_path, abs_path) == 0)
            return &snap->context[i];
    return NULL;
}

/* A file outside the snapshot, as stat sees it. The mtime alone is not
 * enough: `cp -p`, `tar` and `rsync -t` rewrite a file and keep its mtime
 * (and often its size). The ctime cannot be set from user space and moves on
 * every write, and the inode changes when a file is replaced by a rename, so
 * together they notice any rewrite; a chmod or touch only costs a reparse. */
typedef struct {
    long long size, mtime, ctime, ino;
} stat_print;

static const char *const stat_print_keys[] = {"size", "mtime", "ctime", "ino"};
#define STAT_PRINT_FIELDS (sizeof stat_print_keys / sizeof stat_print_keys[0])

static long long *stat_print_field(stat_print *p, size_t i)
{
    long long *fields[] = {&p->size, &p->mtime, &p->ctime, &p->ino};
    return fields[i];
}

/* What a dependency is now: its snapshot hash, else its stat fingerprint;
 * false when it no longer exists. */
static bool describe_dep(const snapshot *snap, const char *path, char **hash, stat_print *print)
{
    const source_file *f = snapshot_file_at(snap, path);
    *hash = NULL;
    *print = (stat_print){0};
    if (f) {
        *hash = xstrdup(f->hash);
        return true;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    print->size = (long long)st.st_size;
    print->mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    print->ctime = (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
    print->ino = (long long)st.st_ino;
    return true;
}

static bool dep_unchanged(const snapshot *snap, json_t *dep)
{
    const char *path = json_string_value(json_object_get(dep, "path"));
    const char *was_hash = json_string_value(json_object_get(dep, "hash"));
    char *hash;
    stat_print now;
    if (!path || !describe_dep(snap, path, &hash, &now))
        return false;
    bool same;
    if (was_hash) {
        same = hash && strcmp(hash, was_hash) == 0;
    } else {
        same = !hash;
        for (size_t i = 0; same && i < STAT_PRINT_FIELDS; i++) {
            json_t *was = json_object_get(dep, stat_print_keys[i]);
            same = json_is_integer(was) && json_integer_value(was) == *stat_print_field(&now, i);
        }
    }
    free(hash);
    return same;
}

file_facts *facts_cache_load(const char *dir, const char *key, const snapshot *snap)
{
    char *path = entry_path(dir, key);
    json_error_t jerr;
    json_t *entry = json_load_file(path, 0, &jerr);
    if (!entry) {
        free(path);
        return NULL;
    }
    json_t *deps = json_object_get(entry, "deps"), *dep;
    size_t i;
    bool fresh = json_is_array(deps);
    json_array_foreach(deps, i, dep) {
        if (!fresh || !dep_unchanged(snap, dep)) {
            fresh = false;
            break;
        }
    }
    const char *facts_text = json_string_value(json_object_get(entry, "facts"));
    char *error = NULL;
    file_facts *f = fresh && facts_text ? facts_load(facts_text, &error) : NULL;
    free(error);
    json_decref(entry);
    if (f)
        utimensat(AT_FDCWD, path, NULL, 0);   /* used: keep it (see remove_unused) */
    free(path);
    return f;
}

static void remove_unused(const char *sub)
{
    DIR *d = opendir(sub);
    if (!d)
        return;
    struct dirent *e;
    time_t now = time(NULL);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *path = xasprintf("%s/%s", sub, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && now - st.st_mtime > ENTRY_LIFETIME_S)
            unlink(path);
        free(path);
    }
    closedir(d);
}

void facts_cache_store(const char *dir, const char *key, const file_facts *f,
                       const snapshot *snap, const fact_strs *included)
{
    json_t *deps = json_array();
    for (size_t i = 0; i < included->n; i++) {
        char *hash;
        stat_print print;
        if (!describe_dep(snap, included->items[i], &hash, &print)) {
            json_decref(deps);
            return;   /* read during the parse, gone now: nothing to vouch for */
        }
        json_t *dep = json_pack("{ss}", "path", included->items[i]);
        if (hash)
            json_object_set_new(dep, "hash", json_string(hash));
        else
            for (size_t k = 0; k < STAT_PRINT_FIELDS; k++)
                json_object_set_new(dep, stat_print_keys[k],
                                    json_integer((json_int_t)*stat_print_field(&print, k)));
        json_array_append_new(deps, dep);
        free(hash);
    }
    char *facts_text = facts_save(f);
    json_t *entry = json_pack("{so ss}", "deps", deps, "facts", facts_text);
    free(facts_text);
    char *path = entry_path(dir, key);
    char *sub = xasprintf("%s/%.2s", dir, key);
    char *tmp = xasprintf("%s.%ld.%p.tmp", path, (long)getpid(), (void *)f);
    bool stored = (mkdir(dir, 0755) == 0 || errno == EEXIST) &&
                  (mkdir(sub, 0755) == 0 || errno == EEXIST) &&
                  json_dump_file(entry, tmp, JSON_COMPACT) == 0 && rename(tmp, path) == 0;
    if (!stored)
        unlink(tmp);
    remove_unused(sub);
    json_decref(entry);
    free(path);
    free(sub);
    free(tmp);
}
