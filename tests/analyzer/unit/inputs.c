/* The snapshot from git (analyzer/input/inputs.c) in a throwaway repository:
 * --staged reads the staged blobs, not the working tree; GIT_INDEX_FILE is
 * honoured; symlinks, submodules, binary and unmerged entries are skipped;
 * the config's exclude applies to discovery but not to a file named. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/inputs.h"

static char dir_template[] = "/tmp/gpulint-unit-inputs-XXXXXX";
static char *repo;
static char *start_dir;

static void sh(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *cmd;
    assert_true(vasprintf(&cmd, fmt, ap) >= 0);
    va_end(ap);
    int rc = system(cmd);
    if (rc != 0)
        fail_msg("command failed (%d): %s", rc, cmd);
    free(cmd);
}

static void write_file(const char *path, const char *content, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(content, 1, len, fp), len);
    fclose(fp);
}

/* A repository with: a.c and sub/b.h staged then changed in the working
 * tree, an untracked c.c, a symlink, a binary .c, a submodule entry, an
 * excluded file and a conflicted (unmerged) file. */
static int make_repo(void **state)
{
    (void)state;
    start_dir = getcwd(NULL, 0);
    repo = mkdtemp(dir_template);
    if (!repo || chdir(repo) != 0)
        return -1;
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
    unsetenv("GIT_INDEX_FILE");
    unsetenv("GIT_DIR");
    sh("git init -q -b main . && git config user.email t@example.invalid && git config user.name t");
    sh("mkdir -p sub gen && printf 'int staged_a;\\n' > a.c && printf '#define STAGED_B 1\\n' > sub/b.h");
    sh("printf 'int generated;\\n' > gen/g.c && ln -s a.c link.c");
    write_file("bin.c", "int x;\0binary\n", 14);
    sh("printf 'int conflict;\\n' > conflict.c");
    sh("git add a.c sub/b.h gen/g.c link.c bin.c conflict.c");
    /* A submodule entry and an unmerged path, written straight into the index. */
    sh("git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,mod.c");
    sh("blob=$(git hash-object -w conflict.c) && git rm -q --cached conflict.c && "
       "printf '100644 %%s 1\\tconflict.c\\n100644 %%s 2\\tconflict.c\\n100644 %%s 3\\tconflict.c\\n' "
       "$blob $blob $blob | git update-index --index-info");
    sh("printf 'int worktree_a;\\n' > a.c && printf 'int untracked;\\n' > c.c");
    return 0;
}

static int remove_repo(void **state)
{
    (void)state;
    if (chdir(start_dir) != 0)
        return -1;
    sh("rm -rf '%s'", repo);
    free(start_dir);
    return 0;
}

static const char *content_of(const snapshot *snap, const char *path)
{
    long i = snapshot_find(snap, path);
    return i < 0 ? NULL : snap->files[i].text;
}

static void load(snapshot *snap, bool staged, char *const *paths, int npaths, gl_config *cfg)
{
    char *root = inputs_repo_root();
    assert_non_null(root);
    memset(snap, 0, sizeof *snap);
    snap->root = root;
    input_request req = {.paths = paths, .npaths = npaths, .staged = staged, .root = root};
    char *error = NULL;
    int rc = inputs_load(snap, &req, cfg, &error);
    if (rc != 0)
        fail_msg("inputs_load: %d %s", rc, error ? error : "");
}

static void unload(snapshot *snap)
{
    free((char *)snap->root);
    snapshot_free(snap);
}

static void staged_reads_the_index_not_the_working_tree(void **state)
{
    (void)state;
    gl_config cfg;
    config_init_defaults(&cfg);
    snapshot snap;
    load(&snap, true, NULL, 0, &cfg);
    /* a.c, gen/g.c, sub/b.h; not the symlink, the binary, the submodule,
     * the unmerged path or the untracked file. */
    assert_int_equal(snap.nfiles, 3);
    assert_string_equal(snap.files[0].path, "a.c");
    assert_string_equal(content_of(&snap, "a.c"), "int staged_a;\n");
    assert_string_equal(content_of(&snap, "sub/b.h"), "#define STAGED_B 1\n");
    assert_non_null(content_of(&snap, "gen/g.c"));
    assert_true(snap.files[2].is_header);
    char *want_abs;
    assert_true(asprintf(&want_abs, "%s/a.c", snap.root) >= 0);
    assert_string_equal(snap.files[0].abs_path, want_abs);
    free(want_abs);
    assert_int_equal(strlen(snap.files[0].hash), 64);
    unload(&snap);
    config_free(&cfg);
}

static void default_reads_tracked_files_from_the_working_tree(void **state)
{
    (void)state;
    gl_config cfg;
    config_init_defaults(&cfg);
    snapshot snap;
    load(&snap, false, NULL, 0, &cfg);
    assert_int_equal(snap.nfiles, 3);
    assert_string_equal(content_of(&snap, "a.c"), "int worktree_a;\n");
    assert_null(content_of(&snap, "c.c"));
    unload(&snap);
    config_free(&cfg);
}

static void staged_honours_git_index_file(void **state)
{
    (void)state;
    /* A second index holding only a different a.c, like `git commit a.c`. */
    sh("cp .git/index .git/other-index && printf 'int other_index;\\n' > other.c && "
       "GIT_INDEX_FILE=.git/other-index git add other.c && rm other.c");
    setenv("GIT_INDEX_FILE", ".git/other-index", 1);
    gl_config cfg;
    config_init_defaults(&cfg);
    snapshot snap;
    load(&snap, true, NULL, 0, &cfg);
    unsetenv("GIT_INDEX_FILE");
    assert_string_equal(content_of(&snap, "other.c"), "int other_index;\n");
    assert_int_equal(snap.nfiles, 4);
    unload(&snap);
    config_free(&cfg);
}

static void exclude_applies_to_discovery_not_to_named_files(void **state)
{
    (void)state;
    gl_config cfg;
    config_init_defaults(&cfg);
    str_list_push(&cfg.exclude, "gen/**");
    snapshot snap;
    load(&snap, true, NULL, 0, &cfg);
    assert_null(content_of(&snap, "gen/g.c"));
    unload(&snap);
    char *dirs[] = {"."};
    load(&snap, false, dirs, 1, &cfg);
    assert_null(content_of(&snap, "gen/g.c"));
    assert_non_null(content_of(&snap, "c.c"));   /* untracked, but in the directory */
    assert_null(content_of(&snap, "link.c"));    /* symlinks are not followed */
    assert_null(content_of(&snap, "bin.c"));     /* binary */
    unload(&snap);
    char *named[] = {"gen/g.c"};
    load(&snap, false, named, 1, &cfg);
    assert_int_equal(snap.nfiles, 1);
    assert_string_equal(snap.files[0].path, "gen/g.c");
    unload(&snap);
    /* A symlink named explicitly is read through, under its own name. */
    char *link[] = {"link.c"};
    load(&snap, false, link, 1, &cfg);
    assert_int_equal(snap.nfiles, 1);
    assert_string_equal(snap.files[0].path, "link.c");
    assert_string_equal(snap.files[0].text, "int worktree_a;\n");
    unload(&snap);
    /* --staged with the file named (from its directory): analysed too. */
    assert_int_equal(chdir("gen"), 0);
    char *named_here[] = {"g.c"};
    load(&snap, true, named_here, 1, &cfg);
    assert_int_equal(chdir(".."), 0);
    assert_int_equal(snap.nfiles, 1);
    assert_string_equal(snap.files[0].path, "gen/g.c");
    assert_string_equal(snap.files[0].text, "int generated;\n");
    unload(&snap);
    /* Named as a directory, the exclude still applies under --staged. */
    char *dir[] = {"gen"};
    load(&snap, true, dir, 1, &cfg);
    assert_int_equal(snap.nfiles, 0);
    unload(&snap);
    config_free(&cfg);
}

static void missing_path_or_fifo_is_a_usage_error(void **state)
{
    (void)state;
    gl_config cfg;
    config_init_defaults(&cfg);
    snapshot snap = {0};
    char *paths[] = {"no/such/file.c"};
    input_request req = {.paths = paths, .npaths = 1, .root = NULL};
    char *error = NULL;
    assert_int_equal(inputs_load(&snap, &req, &cfg, &error), 2);
    assert_non_null(strstr(error, "'no/such/file.c'"));
    free(error);
    /* A FIFO would block the read: refused by name. */
    sh("mkfifo fifo.c");
    char *fifo[] = {"fifo.c"};
    req.paths = fifo;
    error = NULL;
    assert_int_equal(inputs_load(&snap, &req, &cfg, &error), 2);
    assert_non_null(strstr(error, "'fifo.c' is neither a regular file nor a directory"));
    free(error);
    sh("rm fifo.c");
    snapshot_free(&snap);
    config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(staged_reads_the_index_not_the_working_tree),
        cmocka_unit_test(default_reads_tracked_files_from_the_working_tree),
        cmocka_unit_test(staged_honours_git_index_file),
        cmocka_unit_test(exclude_applies_to_discovery_not_to_named_files),
        cmocka_unit_test(missing_path_or_fifo_is_a_usage_error),
    };
    return cmocka_run_group_tests_name("inputs", tests, make_repo, remove_repo);
}
