/* The include set of a file (analyzer/extract/preamble.c,
 * preamble_leading_includes): its leading system headers, sorted and once
 * each, ending where the code or a snapshot header begins; and which set
 * each file's parse uses (preamble_choose). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "extract/preamble.h"
#include "util/xalloc.h"

/* The leading includes of a file of this text (past its leading #define
 * lines when past_defines), and those lines in *defines when not NULL. */
static char *leading_of(const char *text, bool past_defines, char **defines)
{
    snapshot snap = {0};
    source_file f;
    source_file_init(&f, xstrdup("a.c"), xstrdup("/r/a.c"), xstrdup(text), strlen(text), NULL);
    snapshot_add(&snap, &f);
    snapshot_reach *reach = reach_build(&snap, NULL);
    char *set = preamble_leading_includes(&snap.files[0], reach, past_defines, NULL);
    if (defines)
        *defines = preamble_leading_defines(&snap.files[0]);
    reach_free(reach);
    snapshot_free(&snap);
    return set;
}

static char *leading_includes_of(const char *text)
{
    return leading_of(text, false, NULL);
}

/* A file that sets a feature-test macro first gets a set past it, built
 * with its #define lines (comments and all) first; without past_defines
 * the #define ends the set, as a file on the base PCH needs. */
static void feature_macros_start_the_set(void **state)
{
    (void)state;
    char *defines;
    const char *text = "/* why */\n#define _GNU_SOURCE // memmem\n\n#undef NDEBUG\n"
                       "#include <string.h>\n#include <assert.h>\nint x;\n";
    char *set = leading_of(text, true, &defines);
    assert_string_equal(set, "#include <assert.h>\n#include <string.h>\n");
    assert_string_equal(defines, "#define _GNU_SOURCE // memmem\n#undef NDEBUG\n");
    free(set);
    free(defines);
    set = leading_of(text, false, NULL);
    assert_string_equal(set, "");
    free(set);
}

/* A #define continued on the next line, or one after an #if, is no
 * line of the set's: the set ends there (no PCH), as before. */
static void other_directives_end_the_defines(void **state)
{
    (void)state;
    char *defines;
    char *set = leading_of("#define A \\\n 1\n#include <string.h>\n", true, &defines);
    assert_string_equal(set, "");
    assert_string_equal(defines, "");
    free(set);
    free(defines);
    set = leading_of("#define B 1\n#if B\n#define _GNU_SOURCE\n#endif\n#include <string.h>\n",
                     true, &defines);
    assert_string_equal(set, "");
    assert_string_equal(defines, "#define B 1\n");
    free(set);
    free(defines);
}

/* Each name is compared with the one before it once sorted: they were
 * freed while still compared (ASan: heap-use-after-free), so a repeated
 * header could stay twice. */
static void repeated_headers_once_each_sorted(void **state)
{
    (void)state;
    char *set = leading_includes_of("#include <stdlib.h>\n#include <stdio.h>\n"
                                    "#include <stdlib.h>\n#include <stdio.h>\nint x;\n");
    assert_string_equal(set, "#include <stdio.h>\n#include <stdlib.h>\n");
    free(set);
}

static void no_leading_include_is_an_empty_set(void **state)
{
    (void)state;
    char *set = leading_includes_of("int x;\n#include <stdio.h>\n");
    assert_string_equal(set, "");
    free(set);
}

static void ends_at_a_quoted_include(void **state)
{
    (void)state;
    char *set = leading_includes_of("#ifndef A_H\n#define A_H\n#include <string.h>\n"
                                    "#include \"local.h\"\n#include <stdio.h>\n");
    assert_string_equal(set, "#include <string.h>\n");
    free(set);
}

/* CUDA's headers weigh 16 here, the rest 1 (extract.c, header_weight). */
static unsigned test_weight(const char *line)
{
    return strstr(line, "cooperative_groups") || strstr(line, "cublasLt") ? 16 : 1;
}

static void free_chosen(char **chosen, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(chosen[i]);
    free(chosen);
}

#define CG "#include <cooperative_groups.h>\n"
#define LT "#include <cublasLt.h>\n"
#define STDIO "#include <stdio.h>\n"
#define ASSERT "#include <assert.h>\n"

/* llm.c's dev/cuda in small: files alone with their sets share what
 * they have in common with a set two files share, the heavy headers
 * deciding; a set nobody shares gets nothing; groups never mix. */
static void files_alone_share_a_common_subset(void **state)
{
    (void)state;
    char *leading[] = {
        CG LT STDIO,          /* 0, 1: shared as they are */
        CG LT STDIO,
        ASSERT CG STDIO,      /* 2: alone: keeps cg and stdio of 0's set */
        LT STDIO,             /* 3, 4: shared */
        LT STDIO,
        ASSERT,               /* 5: nothing heavy in common with anyone */
        CG LT STDIO,          /* 6: another group */
        NULL,                 /* 7: no set */
    };
    int group[] = {0, 0, 0, 0, 0, 0, 1, 0};
    size_t n = sizeof group / sizeof group[0];
    char **chosen = preamble_choose(leading, group, n, test_weight);
    assert_string_equal(chosen[0], CG STDIO);
    assert_string_equal(chosen[1], CG STDIO);
    assert_string_equal(chosen[2], CG STDIO);
    assert_string_equal(chosen[3], LT STDIO);
    assert_string_equal(chosen[4], LT STDIO);
    assert_null(chosen[5]);
    assert_null(chosen[6]);
    assert_null(chosen[7]);
    free_chosen(chosen, n);
}

#define DV "#include <thrust/device_vector.h>\n"
#define COPY "#include <thrust/copy.h>\n"
#define SORT "#include <thrust/sort.h>\n"
#define HELPER "#include <helper_cuda.h>\n"

/* CCCL's headers weigh 64 here, the rest 1 (extract.c, header_weight). */
static unsigned cccl_weight(const char *line)
{
    return strstr(line, "thrust/") ? 64 : 1;
}

/* cuda-samples' Thrust files in small: a file alone joins a shared set,
 * unless it has twice as much in common with another file alone: two
 * files with Thrust in common share it, not <helper_cuda.h>. */
static void files_alone_pair_on_more_weight(void **state)
{
    (void)state;
    char *leading[] = {
        HELPER STDIO,          /* 0, 1: shared as they are */
        HELPER STDIO,
        HELPER COPY DV SORT,   /* 2, 3: alone, Thrust in common */
        HELPER DV SORT,
        ASSERT HELPER,         /* 4: alone, joins 0's set */
    };
    int group[] = {0, 0, 0, 0, 0};
    size_t n = sizeof group / sizeof group[0];
    char **chosen = preamble_choose(leading, group, n, cccl_weight);
    assert_string_equal(chosen[0], HELPER);
    assert_string_equal(chosen[1], HELPER);
    assert_string_equal(chosen[2], HELPER DV SORT);
    assert_string_equal(chosen[3], HELPER DV SORT);
    assert_string_equal(chosen[4], HELPER);
    free_chosen(chosen, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(repeated_headers_once_each_sorted),
        cmocka_unit_test(no_leading_include_is_an_empty_set),
        cmocka_unit_test(ends_at_a_quoted_include),
        cmocka_unit_test(feature_macros_start_the_set),
        cmocka_unit_test(other_directives_end_the_defines),
        cmocka_unit_test(files_alone_share_a_common_subset),
        cmocka_unit_test(files_alone_pair_on_more_weight),
    };
    return cmocka_run_group_tests_name("preamble", tests, NULL, NULL);
}
