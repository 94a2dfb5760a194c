/* The include set of a file (analyzer/extract/preamble.c,
 * preamble_leading_includes): its leading system headers, sorted and once
 * each, ending where the code or a snapshot header begins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "extract/preamble.h"
#include "util/xalloc.h"

static char *leading_includes_of(const char *text)
{
    snapshot snap = {0};
    source_file f;
    source_file_init(&f, xstrdup("a.c"), xstrdup("/r/a.c"), xstrdup(text), strlen(text), NULL);
    snapshot_add(&snap, &f);
    snapshot_reach *reach = reach_build(&snap);
    char *set = preamble_leading_includes(&snap.files[0], reach);
    reach_free(reach);
    snapshot_free(&snap);
    return set;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(repeated_headers_once_each_sorted),
        cmocka_unit_test(no_leading_include_is_an_empty_set),
        cmocka_unit_test(ends_at_a_quoted_include),
    };
    return cmocka_run_group_tests_name("preamble", tests, NULL, NULL);
}
