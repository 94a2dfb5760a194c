/* .gpulint.yaml: libyaml's document API gives every node its line and column,
 * so each error names the exact place in the file. */
#define _GNU_SOURCE
#include "config/config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "util/xalloc.h"
#include "util/glob.h"

void str_list_push(str_list *list, const char *s)
{
    *XPUSH(list->items, list->n) = xstrdup(s);
}

static void str_list_free(str_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->items[i]);
    free(list->items);
    list->items = NULL;
    list->n = 0;
}

void config_init_defaults(gl_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->limits = (gl_limits){
        .file_bytes = GL_DEFAULT_FILE_BYTES,
        .file_seconds = GL_DEFAULT_FILE_SECONDS,
        .regex_match_limit = GL_DEFAULT_REGEX_MATCH_LIMIT,
        .regex_depth_limit = GL_DEFAULT_REGEX_DEPTH_LIMIT,
    };
    /* The names docs/rules.md bans (no-via-pinned); `banned-names:` adds to them. */
    str_list_push(&cfg->banned_names, "upload_f32_via_pinned");
    str_list_push(&cfg->banned_names, "clone_to_device_*_via_pinned");
}

void config_free(gl_config *cfg)
{
    free(cfg->path);
    free(cfg->shown_path);
    for (size_t i = 0; i < cfg->nrules; i++) {
        free(cfg->rules[i].id);
        str_list_free(&cfg->rules[i].include);
        str_list_free(&cfg->rules[i].exclude);
    }
    free(cfg->rules);
    for (size_t i = 0; i < cfg->npatterns; i++) {
        pattern_rule *p = &cfg->patterns[i];
        free(p->id);
        free(p->regex);
        free(p->message);
        str_list_free(&p->include);
        str_list_free(&p->exclude);
    }
    free(cfg->patterns);
    str_list_free(&cfg->hot);
    str_list_free(&cfg->banned_names);
    str_list_free(&cfg->include_dirs);
    str_list_free(&cfg->defines);
    str_list_free(&cfg->exclude);
    for (size_t i = 0; i < cfg->languages.n; i++) {
        free(cfg->languages.items[i].extension);
        free(cfg->languages.items[i].kind);
    }
    free(cfg->languages.items);
    free(cfg->baseline);
    memset(cfg, 0, sizeof *cfg);
}

const rule_config *config_find_rule(const gl_config *cfg, const char *id)
{
    for (size_t i = 0; i < cfg->nrules; i++)
        if (strcmp(cfg->rules[i].id, id) == 0)
            return &cfg->rules[i];
    return NULL;
}

const pattern_rule *config_find_pattern(const gl_config *cfg, const char *id)
{
    if (strncmp(id, "pattern:", 8) == 0)
        id += 8;
    for (size_t i = 0; i < cfg->npatterns; i++)
        if (strcmp(cfg->patterns[i].id, id) == 0)
            return &cfg->patterns[i];
    return NULL;
}

severity config_severity(const gl_config *cfg, const char *rule, severity fallback)
{
    const rule_config *rc = config_find_rule(cfg, rule);
    if (rc && rc->sev != SEV_NONE)
        return rc->sev;
    const pattern_rule *p = strncmp(rule, "pattern:", 8) == 0 ? config_find_pattern(cfg, rule) : NULL;
    if (p && p->sev != SEV_NONE)
        return p->sev;
    return fallback;
}

static bool any_glob_matches(const str_list *globs, const char *path)
{
    for (size_t i = 0; i < globs->n; i++)
        if (path_glob_match(globs->items[i], path))
            return true;
    return false;
}

static bool globs_admit(const str_list *include, const str_list *exclude, const char *path)
{
    if (include->n && !any_glob_matches(include, path))
        return false;
    return !any_glob_matches(exclude, path);
}

void config_set_enabled(gl_config *cfg, const char *id, bool enabled)
{
    for (size_t i = 0; i < cfg->nrules; i++)
        if (strcmp(cfg->rules[i].id, id) == 0) {
            cfg->rules[i].enabled = enabled;
            return;
        }
    rule_config *rc = XPUSH(cfg->rules, cfg->nrules);
    rc->id = xstrdup(id);
    rc->enabled = enabled;
}

bool config_rule_applies(const gl_config *cfg, const char *rule, const char *path)
{
    const rule_config *rc = config_find_rule(cfg, rule);
    if (rc && (!rc->enabled || !globs_admit(&rc->include, &rc->exclude, path)))
        return false;
    const pattern_rule *p = strncmp(rule, "pattern:", 8) == 0 ? config_find_pattern(cfg, rule) : NULL;
    return !p || globs_admit(&p->include, &p->exclude, path);
}

/* ---- parsing ---- */

typedef struct {
    yaml_document_t *doc;
    const char *shown_path;
    const char *base_dir;   /* the config file's directory */
    char *error;
} loader;

/* Record the first error, at a node's position (libyaml marks are 0-based). */
static int fail_at(loader *ld, const yaml_mark_t *mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(loader *ld, const yaml_mark_t *mark, const char *fmt, ...)
{
    if (ld->error)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    char *msg;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    ld->error = xasprintf("%s:%zu:%zu: error: %s", ld->shown_path, mark->line + 1,
                          mark->column + 1, msg ? msg : "(out of memory)");
    free(msg);
    return -1;
}

static yaml_node_t *node_at(loader *ld, int index)
{
    return yaml_document_get_node(ld->doc, index);
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static int expect_string(loader *ld, yaml_node_t *n, const char *what, const char **out)
{
    if (n->type != YAML_SCALAR_NODE)
        return fail_at(ld, &n->start_mark, "%s must be a string", what);
    *out = scalar(n);
    return 0;
}

static int parse_bool(loader *ld, yaml_node_t *n, const char *what, bool *out)
{
    if (n->type == YAML_SCALAR_NODE && strcmp(scalar(n), "true") == 0)
        *out = true;
    else if (n->type == YAML_SCALAR_NODE && strcmp(scalar(n), "false") == 0)
        *out = false;
    else
        return fail_at(ld, &n->start_mark, "%s must be true or false", what);
    return 0;
}

static int parse_severity(loader *ld, yaml_node_t *n, const char *what, severity *out)
{
    if (n->type == YAML_SCALAR_NODE && strcmp(scalar(n), "error") == 0)
        *out = SEV_ERROR;
    else if (n->type == YAML_SCALAR_NODE && strcmp(scalar(n), "warning") == 0)
        *out = SEV_WARNING;
    else
        return fail_at(ld, &n->start_mark, "%s must be 'error' or 'warning'%s%s%s", what,
                       n->type == YAML_SCALAR_NODE ? ", not '" : "",
                       n->type == YAML_SCALAR_NODE ? scalar(n) : "",
                       n->type == YAML_SCALAR_NODE ? "'" : "");
    return 0;
}

static int parse_string_list(loader *ld, yaml_node_t *n, const char *what, str_list *out)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return fail_at(ld, &n->start_mark, "%s must be a list of strings", what);
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *item = node_at(ld, *it);
        if (item->type != YAML_SCALAR_NODE || scalar(item)[0] == '\0')
            return fail_at(ld, &item->start_mark, "%s must be a list of non-empty strings", what);
        str_list_push(out, scalar(item));
    }
    return 0;
}

/* A list of globs (util/glob.h), each checked: an unsupported one is an
 * error at its own column. */
static int parse_glob_list(loader *ld, yaml_node_t *n, const char *what, bool is_path,
                           str_list *out)
{
    size_t first = out->n;
    if (parse_string_list(ld, n, what, out) != 0)
        return -1;
    yaml_node_item_t *it = n->data.sequence.items.start;
    for (size_t i = first; i < out->n; i++, it++) {
        size_t offset;
        const char *problem = glob_problem(out->items[i], is_path, &offset);
        if (!problem)
            continue;
        yaml_node_t *item = node_at(ld, *it);
        yaml_mark_t at = item->start_mark;
        bool quoted = item->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                      item->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        at.column += offset + quoted;
        return fail_at(ld, &at, "%s: unsupported glob '%s': %s", what, out->items[i], problem);
    }
    return 0;
}

/* Iterate a mapping's pairs, rejecting non-scalar and duplicate keys. */
typedef int (*pair_fn)(loader *ld, yaml_node_t *key, yaml_node_t *value, void *ctx);

static int for_each_pair(loader *ld, yaml_node_t *map, const char *where, pair_fn fn, void *ctx)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(ld, &map->start_mark, "%s must be a mapping (key: value)", where);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *key = node_at(ld, p->key);
        if (key->type != YAML_SCALAR_NODE)
            return fail_at(ld, &key->start_mark, "keys in %s must be strings", where);
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++)
            if (strcmp(scalar(node_at(ld, q->key)), scalar(key)) == 0)
                return fail_at(ld, &key->start_mark, "duplicate key '%s' in %s", scalar(key), where);
        if (fn(ld, key, node_at(ld, p->value), ctx) != 0)
            return -1;
    }
    return 0;
}

typedef struct {
    rule_config *rule;
    const char *where;
} rule_ctx;

static int rule_setting(loader *ld, yaml_node_t *key, yaml_node_t *value, void *vctx)
{
    rule_ctx *ctx = vctx;
    const char *k = scalar(key);
    if (strcmp(k, "enabled") == 0)
        return parse_bool(ld, value, "enabled", &ctx->rule->enabled);
    if (strcmp(k, "severity") == 0)
        return parse_severity(ld, value, "severity", &ctx->rule->sev);
    if (strcmp(k, "include") == 0)
        return parse_glob_list(ld, value, "include", true, &ctx->rule->include);
    if (strcmp(k, "exclude") == 0)
        return parse_glob_list(ld, value, "exclude", true, &ctx->rule->exclude);
    return fail_at(ld, &key->start_mark, "unknown key '%s' in %s", k, ctx->where);
}

static int rule_entry(loader *ld, yaml_node_t *key, yaml_node_t *value, void *vctx)
{
    gl_config *cfg = vctx;
    rule_config *rc = XPUSH(cfg->rules, cfg->nrules);
    rc->id = xstrdup(scalar(key));
    rc->enabled = true;
    rc->line = key->start_mark.line + 1;
    rc->column = key->start_mark.column + 1;
    char *where = xasprintf("rules.%s", rc->id);
    rule_ctx ctx = {rc, where};
    int r = for_each_pair(ld, value, where, rule_setting, &ctx);
    free(where);
    return r;
}

static bool valid_pattern_id(const char *id)
{
    if (!*id)
        return false;
    for (const char *c = id; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
            return false;
    return true;
}

typedef struct {
    pattern_rule *pat;
    const char *where;
} pattern_ctx;

static int pattern_setting(loader *ld, yaml_node_t *key, yaml_node_t *value, void *vctx)
{
    pattern_ctx *ctx = vctx;
    pattern_rule *p = ctx->pat;
    const char *k = scalar(key), *s = NULL;
    if (strcmp(k, "id") == 0) {
        if (expect_string(ld, value, "id", &s) != 0)
            return -1;
        if (!valid_pattern_id(s))
            return fail_at(ld, &value->start_mark,
                           "pattern id '%s' may only use letters, digits, '-', '_' and '.'", s);
        p->id = xstrdup(s);
        return 0;
    }
    if (strcmp(k, "regex") == 0) {
        if (expect_string(ld, value, "regex", &s) != 0)
            return -1;
        int code;
        PCRE2_SIZE offset;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE,
                                       &code, &offset, NULL);
        if (!re) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(code, msg, sizeof msg);
            return fail_at(ld, &value->start_mark, "invalid regex in %s at offset %zu: %s",
                           ctx->where, (size_t)offset, (char *)msg);
        }
        pcre2_code_free(re);
        p->regex = xstrdup(s);
        return 0;
    }
    if (strcmp(k, "message") == 0) {
        if (expect_string(ld, value, "message", &s) != 0)
            return -1;
        p->message = xstrdup(s);
        return 0;
    }
    if (strcmp(k, "severity") == 0)
        return parse_severity(ld, value, "severity", &p->sev);
    if (strcmp(k, "include") == 0)
        return parse_glob_list(ld, value, "include", true, &p->include);
    if (strcmp(k, "exclude") == 0)
        return parse_glob_list(ld, value, "exclude", true, &p->exclude);
    if (strcmp(k, "match-comments") == 0)
        return parse_bool(ld, value, "match-comments", &p->match_comments);
    if (strcmp(k, "match-strings") == 0)
        return parse_bool(ld, value, "match-strings", &p->match_strings);
    return fail_at(ld, &key->start_mark, "unknown key '%s' in %s", k, ctx->where);
}

static int parse_patterns(loader *ld, yaml_node_t *n, gl_config *cfg)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return fail_at(ld, &n->start_mark, "patterns must be a list of mappings");
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *item = node_at(ld, *it);
        pattern_rule *p = XPUSH(cfg->patterns, cfg->npatterns);
        char *where = xasprintf("patterns[%zu]", cfg->npatterns - 1);
        pattern_ctx ctx = {p, where};
        int r = for_each_pair(ld, item, where, pattern_setting, &ctx);
        if (r == 0 && !p->id)
            r = fail_at(ld, &item->start_mark, "%s has no 'id'", where);
        if (r == 0 && !p->regex)
            r = fail_at(ld, &item->start_mark, "%s ('%s') has no 'regex'", where, p->id);
        for (size_t k = 0; r == 0 && k + 1 < cfg->npatterns; k++)
            if (strcmp(cfg->patterns[k].id, p->id) == 0)
                r = fail_at(ld, &item->start_mark, "duplicate pattern id '%s'", p->id);
        if (r == 0 && !p->message)
            p->message = xasprintf("matches the forbidden pattern '%s'", p->id);
        free(where);
        if (r != 0)
            return -1;
    }
    return 0;
}

/* A whole number from 1 to max, in decimal. */
static int parse_count(loader *ld, yaml_node_t *n, const char *what, unsigned long max,
                       unsigned long *out)
{
    const char *s = n->type == YAML_SCALAR_NODE ? scalar(n) : "";
    char *end = NULL;
    errno = 0;
    unsigned long v = *s >= '0' && *s <= '9' ? strtoul(s, &end, 10) : 0;
    if (!end || *end || errno || v < 1 || v > max)
        return fail_at(ld, &n->start_mark, "%s must be a whole number from 1 to %lu", what, max);
    *out = v;
    return 0;
}

static int limit_entry(loader *ld, yaml_node_t *key, yaml_node_t *value, void *vctx)
{
    gl_limits *lim = vctx;
    const char *k = scalar(key);
    unsigned long v;
    if (strcmp(k, "file-bytes") == 0) {
        if (parse_count(ld, value, "limits.file-bytes", 1ul << 32, &v) != 0)
            return -1;
        lim->file_bytes = v;
        return 0;
    }
    struct { const char *key; unsigned *field; unsigned long max; } fields[] = {
        {"file-seconds", &lim->file_seconds, 86400},
        {"regex-match-limit", &lim->regex_match_limit, 4000000000ul},
        {"regex-depth-limit", &lim->regex_depth_limit, 4000000000ul},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (strcmp(k, fields[i].key) != 0)
            continue;
        char *what = xasprintf("limits.%s", k);
        int r = parse_count(ld, value, what, fields[i].max, &v);
        free(what);
        if (r == 0)
            *fields[i].field = (unsigned)v;
        return r;
    }
    return fail_at(ld, &key->start_mark, "unknown key '%s' in limits", k);
}

/* include-dirs are handed to libclang as -I: make them absolute now. */
static void absolutise(str_list *dirs, const char *base_dir)
{
    for (size_t i = 0; i < dirs->n; i++) {
        if (dirs->items[i][0] == '/')
            continue;
        char *abs_dir = xasprintf("%s/%s", base_dir, dirs->items[i]);
        free(dirs->items[i]);
        dirs->items[i] = abs_dir;
    }
}

const char *const config_language_kinds[] = { "c", "c++", "cuda", "c-header", "c++-header",
                                               "cuda-header", NULL };

/* `.inc: c++-header`: an extension (a dot, then no slash) and a kind. */
static int language_entry(loader *ld, yaml_node_t *key, yaml_node_t *value, void *vctx)
{
    language_map *map = vctx;
    const char *ext = scalar(key);
    if (ext[0] != '.' || !ext[1] || strchr(ext, '/'))
        return fail_at(ld, &key->start_mark,
                       "languages: '%s' is not a file extension (write it as '.inc')", ext);
    const char *kind = value->type == YAML_SCALAR_NODE ? scalar(value) : "";
    size_t k = 0;
    while (config_language_kinds[k] && strcmp(config_language_kinds[k], kind) != 0)
        k++;
    if (!config_language_kinds[k])
        return fail_at(ld, &value->start_mark,
                       "languages: '%s' must be one of c, c++, cuda, c-header, c++-header, "
                       "cuda-header", ext);
    *XPUSH(map->items, map->n) = (language_mapping){ xstrdup(ext), xstrdup(kind) };
    return 0;
}

static int top_entry(loader *ld, yaml_node_t *key, yaml_node_t *value, void *vctx)
{
    gl_config *cfg = vctx;
    const char *k = scalar(key);
    if (strcmp(k, "rules") == 0)
        return for_each_pair(ld, value, "rules", rule_entry, cfg);
    if (strcmp(k, "patterns") == 0)
        return parse_patterns(ld, value, cfg);
    if (strcmp(k, "hot") == 0)
        return parse_glob_list(ld, value, "hot", false, &cfg->hot);
    if (strcmp(k, "banned-names") == 0)
        return parse_glob_list(ld, value, "banned-names", false, &cfg->banned_names);
    if (strcmp(k, "include-dirs") == 0) {
        if (parse_string_list(ld, value, "include-dirs", &cfg->include_dirs) != 0)
            return -1;
        absolutise(&cfg->include_dirs, ld->base_dir);
        return 0;
    }
    if (strcmp(k, "defines") == 0)
        return parse_string_list(ld, value, "defines", &cfg->defines);
    if (strcmp(k, "exclude") == 0)
        return parse_glob_list(ld, value, "exclude", true, &cfg->exclude);
    if (strcmp(k, "limits") == 0)
        return for_each_pair(ld, value, "limits", limit_entry, &cfg->limits);
    if (strcmp(k, "baseline") == 0) {
        const char *s = NULL;
        if (expect_string(ld, value, "baseline", &s) != 0)
            return -1;
        if (!*s)
            return fail_at(ld, &value->start_mark, "baseline must be a file name");
        free(cfg->baseline);
        cfg->baseline = s[0] == '/' ? xstrdup(s) : xasprintf("%s/%s", ld->base_dir, s);
        return 0;
    }
    if (strcmp(k, "languages") == 0)
        return for_each_pair(ld, value, "languages", language_entry, &cfg->languages);
    return fail_at(ld, &key->start_mark, "unknown key '%s' at the top level", k);
}

static int load_document(loader *ld, gl_config *cfg)
{
    yaml_node_t *root = yaml_document_get_root_node(ld->doc);
    if (!root)
        return 0;   /* an empty file: the defaults */
    return for_each_pair(ld, root, "the top level", top_entry, cfg);
}

/* ---- bounds, before the document is built ---- */

typedef struct {
    char *name;      /* an anchor */
    size_t nodes;    /* what an alias of it expands to; 0 while it is open */
} anchor_size;

typedef struct {
    anchor_size *anchors;
    size_t n;
} anchor_table;

static size_t anchor_nodes(const anchor_table *t, const char *name)
{
    for (size_t i = t->n; i-- > 0;)   /* a later anchor of the same name wins */
        if (strcmp(t->anchors[i].name, name) == 0)
            return t->anchors[i].nodes ? t->anchors[i].nodes : 1;
    return 1;
}

static size_t anchor_open(anchor_table *t, const yaml_char_t *name)
{
    *XPUSH(t->anchors, t->n) = (anchor_size){xstrdup((const char *)name), 0};
    return t->n - 1;
}

/* The config's nesting depth, its size with every alias expanded (the
 * "billion laughs": ten aliases of ten aliases of ... are small to write and
 * huge to expand) and NUL characters (a "\0" escape would cut a key, a regex
 * or a rule id short without a word) are checked on libyaml's events, before
 * any document is built. Syntax errors are left to the loader, which names
 * them. */
static int check_bounds(const char *text, size_t len, const char *shown_path, char **error)
{
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    anchor_table anchors = {0};
    struct frame { size_t anchor, nodes_before; } stack[GL_CONFIG_MAX_DEPTH + 1];
    size_t depth = 0, nodes = 0;
    const char *problem = NULL;
    bool nul = false;
    char bounds[96];
    snprintf(bounds, sizeof bounds, " (at most %u levels of nesting and %u nodes, aliases expanded)",
             GL_CONFIG_MAX_DEPTH, GL_CONFIG_MAX_NODES);
    yaml_mark_t where = {0};
    for (bool done = false; !done && !problem;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev))
            break;
        where = ev.start_mark;
        switch (ev.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            const yaml_char_t *anchor = ev.type == YAML_SEQUENCE_START_EVENT
                                            ? ev.data.sequence_start.anchor
                                            : ev.data.mapping_start.anchor;
            if (depth == GL_CONFIG_MAX_DEPTH) {
                problem = "is nested more deeply than gpulint reads";
                break;
            }
            stack[depth++] = (struct frame){anchor ? anchor_open(&anchors, anchor) : SIZE_MAX,
                                            nodes};
            nodes++;
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth > 0) {
                struct frame f = stack[--depth];
                if (f.anchor != SIZE_MAX)
                    anchors.anchors[f.anchor].nodes = nodes - f.nodes_before;
            }
            break;
        case YAML_SCALAR_EVENT:
            nodes++;
            if (ev.data.scalar.anchor) {
                /* Opened first: anchor_open moves the table. */
                size_t k = anchor_open(&anchors, ev.data.scalar.anchor);
                anchors.anchors[k].nodes = 1;
            }
            if (memchr(ev.data.scalar.value, '\0', ev.data.scalar.length))
                problem = "has a NUL character in a key or value (it would cut the text short)";
            nul = problem != NULL;
            break;
        case YAML_ALIAS_EVENT:
            nodes += anchor_nodes(&anchors, (const char *)ev.data.alias.anchor);
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        if (!problem && nodes > GL_CONFIG_MAX_NODES)
            problem = "is too large once its aliases are expanded";
        yaml_event_delete(&ev);
    }
    if (problem)
        *error = xasprintf("%s:%zu:%zu: error: the config %s%s", shown_path, where.line + 1,
                           where.column + 1, problem, nul ? "" : bounds);
    for (size_t i = 0; i < anchors.n; i++)
        free(anchors.anchors[i].name);
    free(anchors.anchors);
    yaml_parser_delete(&parser);
    return problem ? -1 : 0;
}

/* Parse the YAML text into cfg. */
static int load_from_text(gl_config *cfg, const char *text, size_t len, loader *ld, char **error)
{
    if (len > GL_CONFIG_MAX_BYTES) {
        *error = xasprintf("%s: error: the config is more than %u bytes, the most gpulint reads",
                           ld->shown_path, GL_CONFIG_MAX_BYTES);
        return -1;
    }
    if (check_bounds(text, len, ld->shown_path, error) != 0)
        return -1;
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    yaml_document_t doc;
    int r;
    if (!yaml_parser_load(&parser, &doc)) {
        const yaml_mark_t *mark = &parser.problem_mark;
        *error = xasprintf("%s:%zu:%zu: error: invalid YAML: %s%s%s", ld->shown_path,
                           mark->line + 1, mark->column + 1,
                           parser.problem ? parser.problem : "parse error",
                           parser.context ? " " : "", parser.context ? parser.context : "");
        r = -1;
    } else {
        ld->doc = &doc;
        r = load_document(ld, cfg);
        if (r != 0)
            *error = ld->error;
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    return r;
}

int config_load(gl_config *cfg, const char *path, const char *shown_path, char **error)
{
    /* O_NONBLOCK: a FIFO named as the config must not block the open. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *error = xasprintf("%s: error: cannot read the config file: %s", shown_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* A character device reads as a file does (--config /dev/null: no
     * settings), bounded like one (/dev/zero is too large); a FIFO or a
     * socket would wait for a writer. */
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
        *error = xasprintf("%s: error: the config is not a regular file", shown_path);
        close(fd);
        return -1;
    }
    if (S_ISREG(st.st_mode) && st.st_size > (off_t)GL_CONFIG_MAX_BYTES) {
        *error = xasprintf("%s: error: the config is %lld bytes; gpulint reads at most %u",
                           shown_path, (long long)st.st_size, GL_CONFIG_MAX_BYTES);
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    char *text = xmalloc((size_t)GL_CONFIG_MAX_BYTES + 2);
    size_t len = 0;
    for (ssize_t n; len <= (size_t)GL_CONFIG_MAX_BYTES &&
                    (n = read(fd, text + len, (size_t)GL_CONFIG_MAX_BYTES + 1 - len)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *error = xasprintf("%s: error: cannot read the config file: %s", shown_path,
                               strerror(errno));
            free(text);
            close(fd);
            return -1;
        }
        len += (size_t)n;
    }
    close(fd);
    char resolved[PATH_MAX];
    char *dir_copy = xstrdup(realpath(path, resolved) ? resolved : path);
    loader ld = {.shown_path = shown_path, .base_dir = dirname(dir_copy)};
    cfg->path = xstrdup(path);
    cfg->shown_path = xstrdup(shown_path);
    int r = load_from_text(cfg, text, len, &ld, error);
    free(text);
    free(dir_copy);
    return r;
}

int config_load_text(gl_config *cfg, const char *text, size_t len, const char *shown_path,
                     const char *base_dir, char **error)
{
    loader ld = {.shown_path = shown_path, .base_dir = base_dir};
    cfg->path = xstrdup(shown_path);
    cfg->shown_path = xstrdup(shown_path);
    return load_from_text(cfg, text, len, &ld, error);
}
