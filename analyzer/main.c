/* gpulint: the command line. Parse options, load the config and the
 * snapshot, run the pipeline, print the report, exit with the codes of
 * util/exit_codes.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/compile_db.h"
#include "input/db_units.h"
#include "config/config.h"
#include "diag/diag.h"
#include "input/header_lang.h"
#include "input/inputs.h"
#include "pipeline.h"
#include "report/report.h"
#include "rules/rule.h"
#include "rules/run_rules.h"
#include "util/exit_codes.h"
#include "util/xalloc.h"
#include "version.h"

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_GITHUB, FORMAT_SARIF } output_format;
typedef enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } color_mode;
/* The option values, in the order of their enums. */
static const char *const format_names[] = {"text", "json", "github", "sarif", NULL};
static const char *const color_names[] = {"auto", "always", "never", NULL};

/* The index of arg in names (NULL-terminated), or -1. */
static int choice_index(const char *arg, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(arg, names[i]) == 0)
            return i;
    return -1;
}

typedef struct {
    bool staged;
    output_format format;
    const char *config_path;
    int jobs;
    color_mode color;
    bool quiet;                   /* --quiet: no progress line */
    const char *baseline;         /* --baseline FILE */
    const char *write_baseline;   /* --write-baseline FILE */
    char *compile_commands;       /* -p DIR / --compile-commands FILE: the JSON file */
    bool list_rules;              /* --list-rules: after the config is read */
    const char *explain;          /* --explain RULE: likewise */
    bool sharded;                 /* --shard K/N */
    shard_spec shard;
    const char *shard_dir;        /* --shard-dir DIR */
    const char *merge_dir;        /* --merge DIR */
    bool sarif_full;              /* --sarif-full: suppressed, known and fixed findings too */
    const char *files_from;       /* --files-from FILE, "-": standard input */
    char **toggles;               /* --enable/--disable RULE, in order: "+id" / "-id" */
    size_t ntoggles;
} options;

static const char USAGE[] =
    "usage: gpulint [options] [PATH...]\n"
    "\n"
    "Analyse C and CUDA files for the repository's GPU rules. PATH: files or\n"
    "directories (recursive, leaving out what git ignores and CMake build\n"
    "trees); default: the files git tracks in the repository.\n"
    "\n"
    "  --staged              analyse the index: exactly what `git commit` would\n"
    "                        record, whole files (honours GIT_INDEX_FILE)\n"
    "  --format FORMAT       text (default), json, sarif (2.1.0), or github\n"
    "                        (GitHub Actions annotations)\n"
    "  --config FILE         default: .gpulint.yaml at the repository root, if any\n"
    "                        (with --staged: the staged .gpulint.yaml)\n"
    "  --sarif-full          SARIF: also the suppressed findings (with their\n"
    "                        reasons), the baseline's known and fixed ones, for\n"
    "                        audits (default: only alerts, the file to upload)\n"
    "  --files-from FILE     also analyse the paths FILE lists, one a line\n"
    "                        (- reads them from standard input)\n"
    "  --enable RULE         run RULE even where the config disables it\n"
    "  --disable RULE        do not run RULE (both may be repeated; the last\n"
    "                        one for a rule wins)\n"
    "  -j, --jobs N          parallel extraction jobs (default: CPU count)\n"
    "  --color WHEN          auto (default), always or never\n"
    "  -q, --quiet           no progress line on stderr (it is only drawn on a\n"
    "                        terminal, for runs that take a while)\n"
    "  -p DIR                use DIR/compile_commands.json for per-file flags\n"
    "  --compile-commands FILE   the same, naming the file\n"
    "  --write-baseline FILE record the current findings in FILE and exit 0\n"
    "  --baseline FILE       report only findings FILE does not know, and those\n"
    "                        of its findings that are fixed\n"
    "  --shard K/N           extract the facts of a stable K-th of N parts of the\n"
    "                        files into --shard-dir DIR and report nothing\n"
    "  --shard-dir DIR       where --shard writes its facts (shard-K-of-N.json)\n"
    "  --merge DIR           the facts of all N shards in DIR: run the rules once\n"
    "                        over them and report, as one run over all files would\n"
    "  --list-rules          list the rules and exit\n"
    "  --explain RULE        what RULE forbids, why, examples, how to suppress\n"
    "  --version             print the version and exit\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Suppress a finding with a reason, on its line or the line above:\n"
    "  // gpulint: allow(rule-id) -- reason\n"
    "or for a whole file: // gpulint: allow-file(rule-id) -- reason\n"
    "\n"
    "Exit status: 0 no error-severity finding, 1 error findings, 2 usage or\n"
    "config error, 3 internal error or a file libclang could not parse.\n"
    "Documentation: docs/gpulint.md\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("gpulint: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'gpulint --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

static const char *severity_name(severity sev)
{
    return sev == SEV_ERROR ? "error" : "warning";
}

/* --list-rules: the registry's rules, and the config's patterns under the
 * pattern row, each with the severity this config gives it. */
static int list_rules(const gl_config *cfg)
{
    run_rule_list rules = run_rules_build(cfg);
    for (size_t i = 0; i < rules.n; i++)
        printf("%-22s %-8s %s\n", rules.items[i].id, severity_name(rules.items[i].sev),
               rules.items[i].summary);
    run_rules_free(&rules);
    return EXIT_CLEAN;
}

/* --explain RULE; for a configured pattern, its regex and message first. */
static int explain_rule(const gl_config *cfg, const char *id)
{
    run_rule_list rules = run_rules_build(cfg);
    const run_rule *r = run_rules_find(&rules, id);
    if (!r) {
        fprintf(stderr, "gpulint: unknown rule '%s' (gpulint --list-rules lists them)\n", id);
        run_rules_free(&rules);
        return EXIT_USAGE;
    }
    if (r->pattern)
        printf("%s (severity: %s)\n%s\nregex: %s\n\n", r->id, severity_name(r->sev),
               r->pattern->message, r->pattern->regex);
    else
        printf("%s (default severity: %s)\n%s\n\n", r->id,
               severity_name(r->def->default_severity), r->summary);
    fputs(r->def->explain, stdout);
    run_rules_free(&rules);
    return EXIT_CLEAN;
}

/* The version, and the git hooks that come with this gpulint: where the
 * hooks look for it (hooks/lib.sh: <prefix>/share/gpulint/hooks beside
 * <prefix>/bin/gpulint once installed, .githooks/ beside build/ in a
 * clone), so that the one setup command can be printed. */
static void print_version(void)
{
    printf("gpulint %s\n", GPULINT_VERSION);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
    const char *const layouts[] = {"%s/../share/gpulint/hooks", "%s/../.githooks"};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        char *dir = xasprintf(layouts[i], exe);
        char *hook = xasprintf("%s/pre-commit", dir);
        char real[PATH_MAX];
        bool found = access(hook, X_OK) == 0 && realpath(dir, real);
        free(hook);
        free(dir);
        if (found) {
            printf("hooks: %s (set up a repository: git config core.hooksPath %s)\n", real,
                   real);
            return;
        }
    }
}

/* Returns -1 to go on, or the exit code of an option that ends the run. */
static int parse_options(int argc, char **argv, options *opt)
{
    enum {
        OPT_STAGED = 256, OPT_FORMAT, OPT_CONFIG, OPT_COLOR, OPT_LIST, OPT_EXPLAIN, OPT_VERSION,
        OPT_BASELINE, OPT_WRITE_BASELINE, OPT_COMPILE_COMMANDS, OPT_SARIF_FULL, OPT_FILES_FROM,
        OPT_ENABLE, OPT_DISABLE, OPT_SHARD, OPT_SHARD_DIR, OPT_MERGE
    };
    static const struct option longopts[] = {
        {"staged", no_argument, NULL, OPT_STAGED},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"jobs", required_argument, NULL, 'j'},
        {"color", required_argument, NULL, OPT_COLOR},
        {"quiet", no_argument, NULL, 'q'},
        {"list-rules", no_argument, NULL, OPT_LIST},
        {"explain", required_argument, NULL, OPT_EXPLAIN},
        {"version", no_argument, NULL, OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {"baseline", required_argument, NULL, OPT_BASELINE},
        {"write-baseline", required_argument, NULL, OPT_WRITE_BASELINE},
        {"compile-commands", required_argument, NULL, OPT_COMPILE_COMMANDS},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"shard-dir", required_argument, NULL, OPT_SHARD_DIR},
        {"merge", required_argument, NULL, OPT_MERGE},
        {"sarif-full", no_argument, NULL, OPT_SARIF_FULL},
        {"files-from", required_argument, NULL, OPT_FILES_FROM},
        {"enable", required_argument, NULL, OPT_ENABLE},
        {"disable", required_argument, NULL, OPT_DISABLE},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;   /* our own messages, with the exit code 2 */
    int c;
    while ((c = getopt_long(argc, argv, ":j:p:qh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_STAGED:
            opt->staged = true;
            break;
        case OPT_FORMAT: {
            int format = choice_index(optarg, format_names);
            if (format < 0)
                return usage_error("unknown format '%s' (text, json, sarif or github)", optarg);
            opt->format = (output_format)format;
            break;
        }
        case OPT_CONFIG:
            opt->config_path = optarg;
            break;
        case 'j': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || n < 1 || n > 1024)
                return usage_error("-j needs a number of jobs from 1 to 1024, not '%s'", optarg);
            opt->jobs = (int)n;
            break;
        }
        case OPT_COLOR: {
            int color = choice_index(optarg, color_names);
            if (color < 0)
                return usage_error("--color takes auto, always or never, not '%s'", optarg);
            opt->color = (color_mode)color;
            break;
        }
        case 'q':
            opt->quiet = true;
            break;
        case 'p':
            free(opt->compile_commands);
            opt->compile_commands = xasprintf("%s/compile_commands.json", optarg);
            break;
        case OPT_COMPILE_COMMANDS:
            free(opt->compile_commands);
            opt->compile_commands = xstrdup(optarg);
            break;
        case OPT_BASELINE:
            opt->baseline = optarg;
            break;
        case OPT_WRITE_BASELINE:
            opt->write_baseline = optarg;
            break;
        case OPT_SHARD:
            if (!shard_parse(optarg, &opt->shard))
                return usage_error("--shard needs K/N with 1 <= K <= N <= 4096, not '%s'", optarg);
            opt->sharded = true;
            break;
        case OPT_SHARD_DIR:
            opt->shard_dir = optarg;
            break;
        case OPT_MERGE:
            opt->merge_dir = optarg;
            break;
        case OPT_SARIF_FULL:
            opt->sarif_full = true;
            break;
        case OPT_FILES_FROM:
            opt->files_from = optarg;
            break;
        case OPT_ENABLE:
        case OPT_DISABLE:
            *XPUSH(opt->toggles, opt->ntoggles) = xasprintf("%c%s", c == OPT_ENABLE ? '+' : '-', optarg);
            break;
        case OPT_LIST:
            opt->list_rules = true;
            break;
        case OPT_EXPLAIN:
            opt->explain = optarg;
            break;
        case OPT_VERSION:
            print_version();
            return EXIT_CLEAN;
        case 'h':
            fputs(USAGE, stdout);
            return EXIT_CLEAN;
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (opt->sharded && !opt->shard_dir)
        return usage_error("%s needs --shard-dir DIR (where the facts go)", "--shard");
    if (opt->shard_dir && !opt->sharded)
        return usage_error("%s is for --shard K/N", "--shard-dir");
    if (opt->sharded && (opt->merge_dir || opt->baseline || opt->write_baseline))
        return usage_error("%s reports nothing: --merge, --baseline and --write-baseline "
                           "belong to the merge", "--shard");
    return -1;
}

/* --enable/--disable over the loaded config; an unknown rule is a usage
 * error (exit 2), as in the config. */
static int apply_toggles(gl_config *cfg, const options *opt)
{
    for (size_t i = 0; i < opt->ntoggles; i++) {
        const char *id = opt->toggles[i] + 1;
        bool enable = opt->toggles[i][0] == '+';
        if (!rule_is_known(cfg, id))
            return usage_error(enable ? "--enable: unknown rule '%s' (gpulint --list-rules lists them)"
                                      : "--disable: unknown rule '%s' (gpulint --list-rules lists them)",
                               id);
        config_set_enabled(cfg, id, enable);
    }
    return 0;
}

/* --files-from: the paths FILE (or standard input) lists, one a line, empty
 * lines skipped, appended to *paths. Returns 0, or EXIT_USAGE (said on
 * stderr) when it cannot be read. */
static int read_files_from(const char *name, char ***paths, size_t *npaths)
{
    FILE *f = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
    if (!f) {
        fprintf(stderr, "gpulint: error: --files-from %s: %s\n", name, strerror(errno));
        return EXIT_USAGE;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        *XPUSH(*paths, *npaths) = xstrdup(line);
    }
    bool failed = ferror(f);
    free(line);
    if (f != stdin)
        fclose(f);
    if (failed) {
        fprintf(stderr, "gpulint: error: --files-from %s: read error\n", name);
        return EXIT_USAGE;
    }
    return 0;
}

/* --staged without --config: the .gpulint.yaml of the index, the one the
 * commit records, so that a commit is judged by its own rules (and each
 * commit of a push by its own). A working-tree copy that differs is named on
 * stderr, since it is not the one in use. Returns 0, EXIT_USAGE or
 * EXIT_INTERNAL. */
static int load_staged_config(gl_config *cfg, const char *root)
{
    char *path = xasprintf("%s/.gpulint.yaml", root);
    char *text = NULL, *error = NULL;
    size_t len = 0;
    int found = inputs_read_staged(root, ".gpulint.yaml", &text, &len, &error);
    int rc = 0;
    if (found < 0) {
        fprintf(stderr, "gpulint: error: reading the staged .gpulint.yaml: %s\n", error);
        rc = found == -2 ? EXIT_USAGE : EXIT_INTERNAL;
    } else if (found == 0) {
        if (access(path, F_OK) == 0)
            fprintf(stderr, "gpulint: note: .gpulint.yaml is not staged; --staged runs without "
                            "it (git add it to use it)\n");
    } else {
        char *worktree = NULL;
        size_t worktree_len = 0;
        bool same = inputs_read_file(path, &worktree, &worktree_len) == 0 &&
                    worktree_len == len && memcmp(worktree, text, len) == 0;
        free(worktree);
        if (!same)
            fprintf(stderr, "gpulint: note: .gpulint.yaml differs from its staged version; "
                            "--staged uses the staged one\n");
        if (config_load_text(cfg, text, len, ".gpulint.yaml (staged)", root, &error) != 0 ||
            rules_check_config(cfg, &error) != 0) {
            fprintf(stderr, "%s\n", error);
            rc = EXIT_USAGE;
        }
    }
    free(error);
    free(text);
    free(path);
    return rc;
}

/* --config FILE; else, with --staged, the staged .gpulint.yaml; else
 * .gpulint.yaml at the repository root (the current directory outside git),
 * if there is one. Returns 0, EXIT_USAGE or EXIT_INTERNAL. */
static int load_config(gl_config *cfg, const options *opt, const char *root)
{
    config_init_defaults(cfg);
    if (opt->staged && !opt->config_path && root)
        return load_staged_config(cfg, root);
    char *path, *shown;
    if (opt->config_path) {
        path = xstrdup(opt->config_path);
        shown = xstrdup(opt->config_path);
    } else {
        char cwd[PATH_MAX];
        const char *dir = root ? root : getcwd(cwd, sizeof cwd);
        if (!dir)
            return 0;
        path = xasprintf("%s/.gpulint.yaml", dir);
        struct stat st;
        if (lstat(path, &st) != 0) {
            free(path);
            return 0;
        }
        /* A link to a shared config that is not there: the run must not
         * go on with the defaults as if the repository had none. */
        if (S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
            fprintf(stderr, "gpulint: error: .gpulint.yaml is a symlink whose target cannot be "
                            "read: %s (restore the target, or remove the link)\n", strerror(errno));
            free(path);
            return EXIT_USAGE;
        }
        /* Name it the way the user sees it from the repository root. */
        bool at_root = getcwd(cwd, sizeof cwd) && root && strcmp(cwd, root) == 0;
        shown = at_root || !root ? xstrdup(".gpulint.yaml") : xstrdup(path);
    }
    char *error = NULL;
    int rc = config_load(cfg, path, shown, &error) == 0 && rules_check_config(cfg, &error) == 0
                 ? 0
                 : EXIT_USAGE;
    if (rc)
        fprintf(stderr, "%s\n", error);
    free(error);
    free(path);
    free(shown);
    return rc;
}

static bool use_color(color_mode mode)
{
    if (mode != COLOR_AUTO)
        return mode == COLOR_ALWAYS;
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && term && strcmp(term, "dumb") != 0;
}

/* Said whenever something was reported, and whenever some file was not
 * checked in full (its not-checked finding suppressed or in the baseline):
 * silence means everything was checked and passed. */
static void print_summary(const report_input *in)
{
    size_t errors = 0, warnings = 0;
    for (size_t i = 0; i < in->nfindings; i++)
        if (finding_is_reported(&in->findings[i]))
            *(in->findings[i].sev == SEV_ERROR ? &errors : &warnings) += 1;
    if (errors || warnings || in->files_checked < in->files_analyzed)
        fprintf(stderr,
                "gpulint: %zu error%s, %zu warning%s in %zu file%s analysed, %zu fully checked\n",
                errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s",
                in->files_analyzed, in->files_analyzed == 1 ? "" : "s", in->files_checked);
}

/* A baseline named in .gpulint.yaml applies in every mode (docs/gpulint.md,
 * "Baselines"), so the hooks, CI and a plain run agree. With --staged, one
 * inside the repository is the one the index records, like the
 * configuration itself: *name and *text (malloc'd) are set then; one
 * outside the repository is read from disk later (*text stays NULL).
 * Returns 0, or -1 after saying why (not staged, git failed). */
static int read_staged_baseline(const char *path, const char *root, char **name, char **text,
                                size_t *len)
{
    size_t rl = root ? strlen(root) : 0;
    if (!root || strncmp(path, root, rl) != 0 || path[rl] != '/')
        return 0;
    const char *rel = path + rl + 1;
    char *error = NULL;
    int found = inputs_read_staged(root, rel, text, len, &error);
    if (found == 1) {
        *name = xasprintf("%s (staged)", rel);
        return 0;
    }
    if (found == 0)
        error = xasprintf("the baseline '%s' named in .gpulint.yaml is not staged "
                          "(git add it; CI reads the committed one)", rel);
    fprintf(stderr, "gpulint: error: %s\n", error);
    free(error);
    *text = NULL;
    return -1;
}

/* The report on stdout. Returns 0, or -1 when stdout could not be written. */
static int write_report(output_format format, const report_input *in)
{
    int rc;
    switch (format) {
    case FORMAT_JSON: rc = report_json(stdout, in); break;
    case FORMAT_GITHUB: rc = report_github(stdout, in); break;
    case FORMAT_SARIF: rc = report_sarif(stdout, in); break;
    default: rc = report_text(stdout, in); break;
    }
    if (format == FORMAT_TEXT)
        print_summary(in);
    if (rc != 0 || fflush(stdout) != 0) {
        fputs("gpulint: error: cannot write the report to stdout\n", stderr);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* A dead git must surface as an error from write(), not kill gpulint. */
    signal(SIGPIPE, SIG_IGN);
    /* gpulint only reads: git must not refresh the index as a side effect
     * (the hooks promise the index stays byte-for-byte what it was). */
    setenv("GIT_OPTIONAL_LOCKS", "0", 0);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    options opt = {.jobs = cpus > 0 ? (int)cpus : 1};
    int rc = parse_options(argc, argv, &opt);
    if (rc >= 0) {
        free(opt.compile_commands);
        return rc;
    }
    compile_db *db = NULL;
    if (opt.compile_commands) {
        char *db_error = NULL;
        db = compile_db_load(opt.compile_commands, &db_error);
        free(opt.compile_commands);
        if (!db) {
            fprintf(stderr, "gpulint: error: %s\n", db_error);
            free(db_error);
            return EXIT_USAGE;
        }
    }

    inputs_share_index();
    char *root = inputs_repo_root();
    gl_config cfg;
    int config_rc = load_config(&cfg, &opt, root);
    if (config_rc == 0)
        config_rc = apply_toggles(&cfg, &opt);
    for (size_t i = 0; i < opt.ntoggles; i++)
        free(opt.toggles[i]);
    free(opt.toggles);
    if (config_rc != 0 || opt.list_rules || opt.explain) {
        /* The rule listing and explanations show the config's patterns. */
        if (config_rc != 0)
            rc = config_rc;
        else
            rc = opt.list_rules ? list_rules(&cfg) : explain_rule(&cfg, opt.explain);
        inputs_release();
        config_free(&cfg);
        compile_db_free(db);
        free(root);
        return rc;
    }

    /* The command line's paths, then --files-from's. */
    char **paths = NULL;
    size_t npaths = 0;
    for (int i = optind; i < argc; i++)
        *XPUSH(paths, npaths) = xstrdup(argv[i]);
    if (opt.files_from) {
        rc = read_files_from(opt.files_from, &paths, &npaths);
        /* An empty list is nothing to analyse, not "what git tracks". */
        if (rc == 0 && npaths == 0)
            fprintf(stderr, "gpulint: note: --files-from %s lists no file: nothing analysed\n",
                    opt.files_from);
        if (rc != 0 || npaths == 0) {
            inputs_release();
            free(paths);
            config_free(&cfg);
            compile_db_free(db);
            free(root);
            return rc;
        }
    }
    snapshot snap = {.root = root};
    input_request req = {
        .paths = paths,
        .npaths = (int)npaths,
        .staged = opt.staged,
        .root = root,
    };
    char *error = NULL;
    rc = inputs_load(&snap, &req, &cfg, &error);
    if (rc != 0) {
        inputs_release();
        fprintf(stderr, "gpulint: error: %s\n", error);
        free(error);
        for (size_t i = 0; i < npaths; i++)
            free(paths[i]);
        free(paths);
        snapshot_free(&snap);
        config_free(&cfg);
        compile_db_free(db);
        free(root);
        return rc;
    }
    /* The database's flags first: a header's language follows its
     * includes, which the database's -I resolve. A database given and one
     * found are used alike (db_units_use), but for the files each serves. */
    if (db) {
        size_t analysed = snap.nfiles, listed = compile_db_apply(db, &snap);
        db_units_use(db, &snap, &cfg, opt.staged, analysed, listed, false);
        compile_db_free(db);
    } else if (compile_db_discover(&snap, &cfg, opt.staged, &error) != 0) {
        inputs_release();
        fprintf(stderr, "gpulint: error: %s\n", error);
        free(error);
        for (size_t i = 0; i < npaths; i++)
            free(paths[i]);
        free(paths);
        snapshot_free(&snap);
        config_free(&cfg);
        free(root);
        return EXIT_USAGE;
    }
    compile_db_note_borrowed(&snap);
    header_langs_resolve(&snap, &cfg);

    pipeline_options run = {
        .jobs = opt.jobs,
        .show_progress = !opt.quiet && isatty(STDERR_FILENO),
        .baseline = opt.baseline ? opt.baseline : cfg.baseline,
        .write_baseline = opt.write_baseline,
        .shard = opt.sharded ? &opt.shard : NULL,
        .shard_dir = opt.shard_dir,
        .merge_dir = opt.merge_dir,
    };
    char *staged_baseline = NULL, *staged_baseline_name = NULL;
    if (!opt.baseline && cfg.baseline && opt.staged &&
        read_staged_baseline(cfg.baseline, root, &staged_baseline_name, &staged_baseline,
                             &run.baseline_len) != 0) {
        inputs_release();
        for (size_t i = 0; i < npaths; i++)
            free(paths[i]);
        free(paths);
        snapshot_free(&snap);
        config_free(&cfg);
        free(root);
        return EXIT_USAGE;
    }
    inputs_release();
    if (staged_baseline) {
        run.baseline = staged_baseline_name;
        run.baseline_text = staged_baseline;
    }
    pipeline_result result;
    int exit_code = pipeline_run(&snap, &cfg, &run, &result);
    if (opt.sharded) {
        /* A shard reports nothing: the merge does. */
        if (exit_code == EXIT_CLEAN)
            fprintf(stderr, "gpulint: shard %u/%u: the facts of %zu of %zu files are in "
                            "%s/shard-%u-of-%u.json\n", opt.shard.k, opt.shard.n,
                    result.shard_files, snap.nfiles, opt.shard_dir, opt.shard.k, opt.shard.n);
    } else if (exit_code != EXIT_USAGE) {
        /* A baseline that could not be read or written was said on stderr. */
        report_input in = {
            .snap = &snap,
            .cfg = &cfg,
            .findings = result.findings.items,
            .nfindings = result.findings.n,
            .files_analyzed = snapshot_analysed(&snap),
            .files_checked = result.files_checked,
            .color = use_color(opt.color),
            .exit_code = exit_code,
            .failures = &result.failures,
            .baseline_active = run.baseline != NULL,
            .sarif_full = opt.sarif_full,
            .fixed = result.fixed,
            .nfixed = result.nfixed,
        };
        if (write_report(opt.format, &in) != 0)
            exit_code = EXIT_INTERNAL;
    }

    pipeline_result_free(&result);
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    free(staged_baseline);
    free(staged_baseline_name);
    snapshot_free(&snap);
    config_free(&cfg);
    free(root);
    return exit_code;
}
