/* compile_commands.json (analyzer/input/compile_db.c): shell splitting, the flags
 * kept from gcc/clang and nvcc commands, lookup by file. */
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

#include "input/compile_db.h"
#include "input/compile_target.h"

static void free_list(str_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

/* The list joined with '|', for one readable comparison. */
static char *joined(const str_list *l)
{
    size_t len = 1;
    for (size_t i = 0; i < l->n; i++)
        len += strlen(l->items[i]) + 1;
    char *s = calloc(1, len);
    for (size_t i = 0; i < l->n; i++) {
        if (i)
            strcat(s, "|");
        strcat(s, l->items[i]);
    }
    return s;
}

static void expect_split(const char *command, const char *want)
{
    str_list words = {0};
    assert_int_equal(shell_split(command, &words), 0);
    char *got = joined(&words);
    assert_string_equal(got, want);
    free(got);
    free_list(&words);
}

static void shell_words(void **state)
{
    (void)state;
    expect_split("cc  -c a.c", "cc|-c|a.c");
    expect_split("cc -DNAME=\"\\\"x y\\\"\" 'a b.c'", "cc|-DNAME=\"x y\"|a b.c");
    expect_split("cc -Ipath\\ with\\ spaces", "cc|-Ipath with spaces");
    str_list words = {0};
    assert_int_equal(shell_split("cc 'unterminated", &words), -1);
    free_list(&words);
}

static void expect_translation(const char *command, const char *want)
{
    str_list argv = {0}, out = {0};
    assert_int_equal(shell_split(command, &argv), 0);
    char *error;
    source_lang lang;
    assert_int_equal(compile_args_translate(argv.items, argv.n, "/build", &out, &lang, &error), 0);
    assert_null(error);
    char *got = joined(&out);
    assert_string_equal(got, want);
    free(got);
    free_list(&argv);
    free_list(&out);
}

static void host_compiler_flags(void **state)
{
    (void)state;
    expect_translation("cc -std=c11 -O2 -Wall -Iinc -I /abs/inc -isystem sys -DA=1 -D B -UC "
                       "-include pre.h -MMD -MF x.d -c -o x.o ../src/x.c",
                       "-std=c11|-I/build/inc|-I/abs/inc|-isystem|/build/sys|-DA=1|-DB|-UC|"
                       "-include|/build/pre.h");
}

static void nvcc_flags(void **state)
{
    (void)state;
    expect_translation("/usr/local/cuda/bin/nvcc -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] "
                       "--generate-code=arch=compute_80,code=sm_80 -arch sm_90 -arch=sm_90 "
                       "-Xcompiler -Wall,-fPIC,-DHOST=1,-Ihost_inc -Xcompiler=-Werror "
                       "-forward-unknown-to-host-compiler -rdc=true -rdc true "
                       "--relocatable-device-code=true --include-path=layer --define-macro K=2 "
                       "-x cu -c layer/kernels.cu -o kernels.o",
                       "-std=c++17|-DHOST=1|-I/build/host_inc|-fgpu-rdc|-fgpu-rdc|-fgpu-rdc|"
                       "-I/build/layer|-DK=2");
}

/* The language a command's -x names, in gcc's, clang's and nvcc's
 * spellings; the last one counts, and one gpulint does not parse leaves the
 * file to its extension (LANG_COUNT). */
static void expect_language(const char *command, source_lang want)
{
    str_list argv = {0}, out = {0};
    assert_int_equal(shell_split(command, &argv), 0);
    char *error;
    source_lang lang = LANG_C;
    assert_int_equal(compile_args_translate(argv.items, argv.n, "/build", &out, &lang, &error), 0);
    assert_int_equal(lang, want);
    assert_int_equal(out.n, 1);   /* -Ia: the -x value is not taken for a flag */
    free_list(&argv);
    free_list(&out);
}

static void language_flags(void **state)
{
    (void)state;
    expect_language("nvcc -x cu -Ia -c main.cpp", LANG_CUDA);
    expect_language("nvcc --x cu -Ia main.cpp", LANG_CUDA);
    expect_language("nvcc --x=cu -Ia main.cpp", LANG_CUDA);
    expect_language("clang++ -x cuda -Ia main.cpp", LANG_CUDA);
    expect_language("clang -xc++ -Ia main.h", LANG_CXX);
    expect_language("gcc -x c -Ia main.inc", LANG_C);
    expect_language("g++ -x c-header -Ia main.h", LANG_C);
    expect_language("g++ -x c++ -x cu -Ia main.cpp", LANG_CUDA);
    expect_language("cc -x assembler-with-cpp -Ia start.S", LANG_COUNT);
    expect_language("cc -Ia main.c", LANG_COUNT);
}

/* Relocatable device code is clang's -fgpu-rdc, in each of nvcc's
 * spellings; turned off, or not asked for, it is nothing. */
static void relocatable_device_code(void **state)
{
    (void)state;
    expect_translation("nvcc -dc -o a.o a.cu", "-fgpu-rdc");
    expect_translation("nvcc --device-c a.cu", "-fgpu-rdc");
    expect_translation("nvcc --relocatable-device-code true -c a.cu", "-fgpu-rdc");
    expect_translation("clang++ -fgpu-rdc -x cuda -c a.cu", "-fgpu-rdc");
    expect_translation("nvcc -rdc false -rdc=false --relocatable-device-code=false -c a.cu -DX",
                       "-DX");
}

static void database_lookup(void **state)
{
    (void)state;
    char path[] = "/tmp/gpulint-unit-cdb-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs("[\n"
          " {\"directory\": \"/repo\", \"file\": \"layer/a.cu\",\n"
          "  \"arguments\": [\"nvcc\", \"-Ilayer\", \"-DFIRST\", \"-c\", \"layer/a.cu\"]},\n"
          " {\"directory\": \"/repo/build\", \"file\": \"../layer/b.c\",\n"
          "  \"command\": \"cc -I../inc -c ../layer/b.c\"},\n"
          " {\"directory\": \"/repo\", \"file\": \"/repo/layer/a.cu\",\n"
          "  \"command\": \"nvcc -DSECOND -c layer/a.cu\"}\n"
          "]\n",
          fp);
    fclose(fp);
    char *error = NULL;
    compile_db *db = compile_db_load(path, &error);
    unlink(path);
    assert_non_null(db);
    const str_list *a = compile_db_lookup(db, "/repo/layer/a.cu");
    assert_non_null(a);
    char *got = joined(a);
    assert_string_equal(got, "-I/repo/layer|-DFIRST");   /* the first entry wins */
    free(got);
    const str_list *b = compile_db_lookup(db, "/repo/layer/b.c");
    assert_non_null(b);
    got = joined(b);
    assert_string_equal(got, "-I/repo/inc");
    free(got);
    assert_null(compile_db_lookup(db, "/repo/layer/a.h"));

    snapshot snap = {.root = "/repo"};
    source_file f;
    source_file_init(&f, strdup("layer/b.c"), strdup("/repo/layer/b.c"), strdup("x;\n"), 3, NULL);
    snapshot_add(&snap, &f);
    compile_db_apply(db, &snap);
    assert_int_equal(snap.files[0].nargs, 1);
    assert_string_equal(snap.files[0].args[0], "-I/repo/inc");
    snapshot_free(&snap);
    compile_db_free(db);
}

/* The target an entry's object path names, or none (NULL: compared as ""). */
static void expect_target(const char *directory, const char *command, const char *output,
                          const char *want)
{
    str_list argv = {0};
    assert_int_equal(shell_split(command, &argv), 0);
    char *got = compile_target(directory, argv.items, argv.n, output);
    assert_string_equal(got ? got : "", want);
    free(got);
    free_list(&argv);
}

static void build_targets(void **state)
{
    (void)state;
    /* CMake, Unix Makefiles and Ninja alike; a target of a subdirectory. */
    expect_target("/b", "nvcc -x cu -c /s/a/x.cu -o CMakeFiles/one.dir/a/x.cu.o", NULL,
                  "/b/CMakeFiles/one.dir");
    expect_target("/b/sub", "c++ -o CMakeFiles/two.dir/z.cpp.o -c /s/sub/z.cpp", NULL,
                  "/b/sub/CMakeFiles/two.dir");
    expect_target("/b", "c++ -c z.cpp -o sub/CMakeFiles/two.dir/z.cpp.o", NULL,
                  "/b/sub/CMakeFiles/two.dir");
    /* A source directory named like an object directory below CMake's. */
    expect_target("/b", "cc -c a.c -oCMakeFiles/t.dir/lib.p/a.c.o", NULL, "/b/CMakeFiles/t.dir");
    /* The entry's "output" field first; nvcc's --output-file. */
    expect_target("/b", "cc -c a.c -o a.o", "CMakeFiles/t.dir/a.c.o", "/b/CMakeFiles/t.dir");
    expect_target("/b", "nvcc -c a.cu --output-file=CMakeFiles/k.dir/a.cu.o", NULL,
                  "/b/CMakeFiles/k.dir");
    expect_target("/b", "nvcc -c a.cu --output-file CMakeFiles/k.dir/a.cu.o", NULL,
                  "/b/CMakeFiles/k.dir");
    /* Meson: <target file>.p. */
    expect_target("/b", "cc -Isrc/prog.p -o src/prog.p/main.c.o -c ../src/main.c", NULL,
                  "/b/src/prog.p");
    /* No target: a Makefile's objects (bear), a .dir outside CMakeFiles, no -o. */
    expect_target("/b", "cc -c main.c -o obj/main.o", NULL, "");
    expect_target("/b", "cc -c main.c -o x.dir/main.o", NULL, "");
    expect_target("/b", "cc -c main.c", NULL, "");
    expect_target("/b", "cc -c main.c -o CMakeFiles/t.dir", NULL, "");   /* a file, no directory */
}

static void entry_targets(void **state)
{
    (void)state;
    char path[] = "/tmp/gpulint-unit-cdb-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    fputs("[\n"
          " {\"directory\": \"/b\", \"file\": \"/s/common.cu\",\n"
          "  \"command\": \"nvcc -c /s/common.cu -o CMakeFiles/two.dir/common.cu.o\"},\n"
          " {\"directory\": \"/b\", \"file\": \"/s/common.cu\",\n"
          "  \"command\": \"nvcc -c /s/common.cu -o CMakeFiles/one.dir/common.cu.o\"},\n"
          " {\"directory\": \"/b\", \"file\": \"/s/flat.c\",\n"
          "  \"command\": \"cc -c /s/flat.c -o flat.o\"}\n"
          "]\n",
          fp);
    fclose(fp);
    char *error = NULL;
    compile_db *db = compile_db_load(path, &error);
    unlink(path);
    assert_non_null(db);
    snapshot snap = {.root = "/s"};
    source_file f;
    source_file_init(&f, strdup("common.cu"), strdup("/s/common.cu"), strdup("x;\n"), 3, NULL);
    snapshot_add(&snap, &f);
    source_file_init(&f, strdup("flat.c"), strdup("/s/flat.c"), strdup("x;\n"), 3, NULL);
    snapshot_add(&snap, &f);
    assert_int_equal(compile_db_apply(db, &snap), 2);
    /* Built into two targets: both, sorted. */
    assert_int_equal(snap.files[0].ntargets, 2);
    assert_string_equal(snap.files[0].targets[0], "/b/CMakeFiles/one.dir");
    assert_string_equal(snap.files[0].targets[1], "/b/CMakeFiles/two.dir");
    assert_int_equal(snap.files[1].ntargets, 0);
    snapshot_free(&snap);
    compile_db_free(db);
}

static void malformed_database(void **state)
{
    (void)state;
    char path[] = "/tmp/gpulint-unit-cdb-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    fputs("[{\"directory\": \"/repo\", \"file\": \"a.c\"}]\n", fp);
    fclose(fp);
    char *error = NULL;
    assert_null(compile_db_load(path, &error));
    assert_non_null(strstr(error, "entry 0 needs"));
    free(error);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shell_words),
        cmocka_unit_test(host_compiler_flags),
        cmocka_unit_test(nvcc_flags),
        cmocka_unit_test(relocatable_device_code),
        cmocka_unit_test(language_flags),
        cmocka_unit_test(database_lookup),
        cmocka_unit_test(malformed_database),
        cmocka_unit_test(build_targets),
        cmocka_unit_test(entry_targets),
    };
    return cmocka_run_group_tests_name("compile_db", tests, NULL, NULL);
}
