/* Header languages (analyzer/input/header_lang.c): CUDA when a CUDA file includes
 * the header, directly or through other headers, or when nothing includes it
 * and its syntax is not C; C otherwise. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/header_lang.h"
#include "util/xalloc.h"

static void add(snapshot *snap, const char *path, const char *text)
{
    source_file f;
    source_file_init(&f, xstrdup(path), xasprintf("/repo/%s", path), xstrdup(text), strlen(text), NULL);
    snapshot_add(snap, &f);
}

static source_lang lang_of(const snapshot *snap, const char *path)
{
    long i = snapshot_find(snap, path);
    assert_true(i >= 0);
    return snap->files[i].lang;
}

static void cuda_reaches_headers_transitively(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "layer/k.cu", "#include \"inc/x.h\"\n  #  include <common.h>\n");
    add(&snap, "layer/inc/x.h", "#include \"y.h\"\n#include \"../../top.h\"\n");
    add(&snap, "layer/inc/y.h", "int y;\n");
    add(&snap, "top.h", "int t;\n");
    add(&snap, "include/common.h", "int c;\n");
    add(&snap, "tools/t.c", "#include \"c_only.h\"\n// #include \"commented.h\"\n");
    add(&snap, "tools/c_only.h", "int c;\n");
    add(&snap, "tools/commented.h", "int c;\n");
    add(&snap, "tools/unused.h", "int u;\n");
    snapshot_sort(&snap);
    gl_config cfg;
    config_init_defaults(&cfg);
    str_list_push(&cfg.include_dirs, "/repo/include");
    header_langs_resolve(&snap, &cfg);
    assert_int_equal(lang_of(&snap, "layer/inc/x.h"), LANG_CUDA);
    assert_int_equal(lang_of(&snap, "layer/inc/y.h"), LANG_CUDA);      /* through x.h */
    assert_int_equal(lang_of(&snap, "top.h"), LANG_CUDA);              /* ../.. resolved */
    assert_int_equal(lang_of(&snap, "include/common.h"), LANG_CUDA);   /* via include-dirs */
    assert_int_equal(lang_of(&snap, "tools/c_only.h"), LANG_C);
    assert_int_equal(lang_of(&snap, "tools/commented.h"), LANG_C);     /* a comment is no include */
    assert_int_equal(lang_of(&snap, "tools/unused.h"), LANG_C);
    assert_int_equal(lang_of(&snap, "tools/t.c"), LANG_C);
    config_free(&cfg);
    snapshot_free(&snap);
}

static void headers_alone_are_cuda_by_their_syntax(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "alone/kernels.h", "__device__ inline float sq(float x) { return x * x; }\n");
    add(&snap, "alone/packed.h", "template <class T> struct P { T v; };\n");
    add(&snap, "alone/std.h", "#include <string>\nvoid f(const std::string &s);\n");
    add(&snap, "alone/launch.h", "#define LAUNCH(k) k<<<1, 1>>>()\n");
    add(&snap, "alone/sub.h", "int sub;\n");
    add(&snap, "alone/uses_sub.h", "#include \"sub.h\"\nnamespace n {}\n");
    add(&snap, "alone/plain.h", "#include <stdio.h>\n#include <cuda_runtime.h>\n"
                                "/* __device__ in a comment */ int templates; char *s = \"template\";\n");
    /* Included by a C file: C, whatever its syntax says. */
    add(&snap, "c/used.h", "#ifdef __CUDACC__\n#define HD __host__ __device__\n#endif\n");
    add(&snap, "c/main.c", "#include \"used.h\"\n");
    snapshot_sort(&snap);
    gl_config cfg;
    config_init_defaults(&cfg);
    header_langs_resolve(&snap, &cfg);
    assert_int_equal(lang_of(&snap, "alone/kernels.h"), LANG_CUDA);
    assert_int_equal(lang_of(&snap, "alone/packed.h"), LANG_CUDA);
    assert_int_equal(lang_of(&snap, "alone/std.h"), LANG_CUDA);
    assert_int_equal(lang_of(&snap, "alone/launch.h"), LANG_CUDA);
    assert_int_equal(lang_of(&snap, "alone/uses_sub.h"), LANG_CUDA);
    assert_int_equal(lang_of(&snap, "alone/sub.h"), LANG_CUDA);   /* included by a CUDA header */
    assert_int_equal(lang_of(&snap, "alone/plain.h"), LANG_C);
    assert_int_equal(lang_of(&snap, "c/used.h"), LANG_C);
    config_free(&cfg);
    snapshot_free(&snap);
}

static const source_file *file_of(const snapshot *snap, const char *path)
{
    long i = snapshot_find(snap, path);
    assert_true(i >= 0);
    return &snap->files[i];
}

/* A header of several programs (sibling directories) gets one unit of each:
 * its context, then one more per program that none of those links with. */
static void headers_get_a_unit_per_program(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "shared.cuh", "int s;\n");
    add(&snap, "blur/blur.cu", "#include \"../shared.cuh\"\n");
    add(&snap, "blur/host.cu", "#include \"../shared.cuh\"\n");      /* blur's program again */
    add(&snap, "blur/sub/tool.cu", "#include \"../../shared.cuh\"\n"); /* links with blur/ */
    add(&snap, "sharpen/cfg.h", "#include \"../shared.cuh\"\n");
    add(&snap, "sharpen/sharpen.cu", "#include \"cfg.h\"\n");         /* through a header */
    add(&snap, "tools/t.c", "#include \"../shared.cuh\"\n");
    add(&snap, "only/k.cu", "#include \"own.h\"\n");
    add(&snap, "only/own.h", "int o;\n");
    snapshot_sort(&snap);
    gl_config cfg;
    config_init_defaults(&cfg);
    header_langs_resolve(&snap, &cfg);
    const source_file *shared = file_of(&snap, "shared.cuh");
    assert_int_equal(shared->context, snapshot_find(&snap, "blur/blur.cu"));
    assert_int_equal(shared->nother_contexts, 2);
    assert_int_equal(shared->other_contexts[0], snapshot_find(&snap, "sharpen/sharpen.cu"));
    assert_int_equal(shared->other_contexts[1], snapshot_find(&snap, "tools/t.c"));
    assert_int_equal(file_of(&snap, "sharpen/cfg.h")->nother_contexts, 0);
    assert_int_equal(file_of(&snap, "only/own.h")->nother_contexts, 0);
    config_free(&cfg);
    snapshot_free(&snap);
}

/* A source file that another file includes is a part of its includer's
 * unit, as a header is (and its headers belong to that unit too); one that
 * nothing else includes, or that includes itself, is a unit of its own. */
static void included_sources_get_their_includers_unit(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "gles/viewer.cu", "#include <X11/Xlib.h>\n#include \"iface.c\"\n");
    add(&snap, "gles/iface.c", "#include \"iface.h\"\n");
    add(&snap, "gles/iface.h", "int w;\n");
    add(&snap, "solo/self.c", "#ifndef AGAIN\n#define AGAIN\n#include \"self.c\"\n#endif\n");
    snapshot_sort(&snap);
    gl_config cfg;
    config_init_defaults(&cfg);
    header_langs_resolve(&snap, &cfg);
    long viewer = snapshot_find(&snap, "gles/viewer.cu");
    assert_int_equal(file_of(&snap, "gles/iface.c")->context, viewer);
    assert_int_equal(file_of(&snap, "gles/iface.h")->context, viewer);
    assert_int_equal(file_of(&snap, "gles/viewer.cu")->context, -1);
    assert_int_equal(file_of(&snap, "solo/self.c")->context, -1);
    assert_int_equal(lang_of(&snap, "gles/iface.c"), LANG_C);   /* keeps its own */
    config_free(&cfg);
    snapshot_free(&snap);
}

/* Outside a repository (no root) paths are as given, relative to the
 * directory gpulint runs in: an absolute include-dirs entry still finds
 * the header there, which then has its includer's unit. */
static void include_dirs_resolve_outside_a_repository(void **state)
{
    (void)state;
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snapshot snap = {.root = NULL};
    static const char *const paths[] = {"app/main.cu", "common/helper.h"};
    static const char *const texts[] = {"#include <helper.h>\n", "int h;\n"};
    for (size_t i = 0; i < 2; i++) {
        source_file f;
        source_file_init(&f, xstrdup(paths[i]), xasprintf("%s/%s", cwd, paths[i]),
                         xstrdup(texts[i]), strlen(texts[i]), NULL);
        snapshot_add(&snap, &f);
    }
    snapshot_sort(&snap);
    gl_config cfg;
    config_init_defaults(&cfg);
    char *common = xasprintf("%s/common", cwd);
    str_list_push(&cfg.include_dirs, common);
    free(common);
    header_langs_resolve(&snap, &cfg);
    assert_int_equal(file_of(&snap, "common/helper.h")->context, snapshot_find(&snap, "app/main.cu"));
    assert_int_equal(lang_of(&snap, "common/helper.h"), LANG_CUDA);
    config_free(&cfg);
    snapshot_free(&snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cuda_reaches_headers_transitively),
        cmocka_unit_test(headers_alone_are_cuda_by_their_syntax),
        cmocka_unit_test(headers_get_a_unit_per_program),
        cmocka_unit_test(included_sources_get_their_includers_unit),
        cmocka_unit_test(include_dirs_resolve_outside_a_repository),
    };
    return cmocka_run_group_tests_name("header_lang", tests, NULL, NULL);
}
