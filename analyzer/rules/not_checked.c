/* not-checked: a file gpulint could not check in full (an #include not
 * found, another fatal compiler error, no CUDA toolkit for a CUDA file, no
 * translation unit at all), from the not-checked facts extraction records
 * (extract/extract.c); rules/pattern.c reports a regex limit hit under this
 * rule id too. An error by default: what was not checked did not
 * pass. Each message names the cause and the fix. */
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "rules/lost_header.h"
#include "rules/rule.h"
#include "util/xalloc.h"

#define NOT_CHECKED "this file was not checked"
#define FLAGS_FIX "give gpulint the build's flags: -p DIR (the build's compile_commands.json), " \
                  "or include-dirs: and defines: in .gpulint.yaml"

/* libclang names an included file by its absolute path: shown as every
 * other path gpulint prints (shown_path), absolute when outside the
 * repository. */
static char *shown_via(const snapshot *snap, const char *via)
{
    if (!via)
        return xstrdup("");
    const char *shown = shown_path(snap, via);
    return xasprintf(" (in %s)", shown ? shown : via);
}

/* Why a header was parsed with no unit's flags, when it was: nothing
 * analysed includes it (nccl's src/device/all_gather.h, which only the
 * build's generated sources include), or its unit does not reach it (a
 * branch the build does not take). "" otherwise. */
static char *parsed_alone(const analysis *a, size_t fi)
{
    const source_file *f = &a->snap->files[fi];
    const file_facts *facts = a->facts[fi];
    if (facts && facts->n_outside_unit > 0 && facts->outside_unit[0].copy)
        return xasprintf(" (the unit of %s opens %s in place of this header, a copy whose "
                         "content differs: it was parsed on its own, without that unit's "
                         "flags)",
                         facts->outside_unit[0].unit, facts->outside_unit[0].copy);
    if (facts && facts->n_outside_unit > 0 && f->context >= 0 &&
        a->snap->files[f->context].nargs > 0)
        return xasprintf(" (the unit of %s does not include this header, in a preprocessor "
                         "branch this build does not take: it was parsed on its own, with "
                         "that unit's compilation database flags)",
                         facts->outside_unit[0].unit);
    if (facts && facts->n_outside_unit > 0)
        return xasprintf(" (the unit of %s does not include this header, in a preprocessor "
                         "branch this build does not take: it was parsed on its own, without "
                         "that unit's flags)",
                         facts->outside_unit[0].unit);
    if (f->is_header && f->context < 0)
        return xstrdup(" (no file analysed includes this header: it was parsed on its own, "
                       "without the flags of a file that includes it; one the build generates, "
                       "or one outside the paths given, is not analysed)");
    /* Analysed in the parse of a header that nothing analysed includes
     * (input/header_lang.c gives such a header's headers its parse): that
     * parse had no unit's flags either (nccl's src/device/primitives.h, in
     * all_gather.h's parse), so -p DIR alone does not mend it. */
    const source_file *ctx = f->is_header && f->context >= 0 ? &a->snap->files[f->context] : NULL;
    if (ctx && ctx->is_header && ctx->context < 0)
        return xasprintf(" (analysed in the parse of %s, a header that no file analysed "
                         "includes: it was parsed on its own, without the flags of a file that "
                         "includes it; one the build generates, or one outside the paths given, "
                         "is not analysed)",
                         ctx->path);
    return xstrdup("");
}

/* When the unit a file was parsed in is a source file that a compilation
 * database was used for but does not list (a file this configuration of
 * the build does not compile, or a stale database), that is why its flags
 * were missing: " ...; the compilation database D does not list ..." with
 * what to do. NULL otherwise: the generic fix (-p DIR) applies. */
static char *unlisted(const analysis *a, size_t fi)
{
    const source_file *f = &a->snap->files[fi];
    const source_file *unit = f->is_header && f->context >= 0 ? &a->snap->files[f->context] : f;
    if (!unit->unlisted_in)
        return NULL;
    char *whose = unit == f ? xstrdup("this file")
                            : xasprintf("%s, the unit this header was analysed in", unit->path);
    char *with = unit->flags_from
                     ? xasprintf("the flags of %s (listed, in its directory or one "
                                 "above it) and the config's", unit->flags_from)
                     : xstrdup("the config's flags alone");
    char *s = xasprintf("the compilation database %s does not list %s, so it was parsed with "
                        "%s, not the build's: configure the build so "
                        "that it compiles the file and regenerate the database (or regenerate "
                        "a stale one), give the flags with include-dirs: and defines: in "
                        ".gpulint.yaml, or exclude the file",
                        unit->unlisted_in, whose, with);
    free(with);
    free(whose);
    return s;
}

/* Causes at one place of a file that happened in other files (a header's
 * unit stopped by #includes of its own before it had read the header, all
 * reported at the header's first line): facts k and j say the same there. */
static bool same_place_elsewhere(const fact_not_checked *k, const fact_not_checked *j)
{
    return k->via && j->via && !k->unit && !j->unit && k->loc.line == j->loc.line &&
           k->loc.col == j->loc.col;
}

/* How many facts after k are said with it (same_place_elsewhere), and
 * whether an earlier one said it already. */
static size_t said_with(const file_facts *f, size_t k, bool *said_before)
{
    size_t more = 0;
    *said_before = false;
    for (size_t j = 0; j < f->n_not_checked; j++)
        if (j != k && same_place_elsewhere(&f->not_checked[k], &f->not_checked[j])) {
            if (j < k)
                *said_before = true;
            else
                more++;
        }
    return more;
}

/* One finding for fact u and the `more` causes at its place after it
 * (said_with): a header whose unit failed at twelve #includes before
 * reaching it says so once (NVIDIA/gdrcopy's gdrdrv.h, docs/realcode.md). */
static void report(const analysis *a, size_t fi, const fact_not_checked *u, size_t more,
                   diag_sink *sink)
{
    const char *path = a->snap->files[fi].path;
    char *in = shown_via(a->snap, u->via);
    char *via = more ? xasprintf("%s, and %zu more at this line", in, more) : xstrdup(in);
    free(in);
    switch (u->cause) {
    case UNCHECKED_MISSING_INCLUDE: {
        /* A header of the snapshot itself: its directory is the fix. */
        char *dir = lost_header_dir(a->snap, u->detail,
                                    u->via ? u->via : a->snap->files[fi].abs_path);
        char *alone = parsed_alone(a, fi);
        char *db = unlisted(a, fi);
        if (db)
            diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                        "'%s' not found%s: " NOT_CHECKED "; %s%s%s%s", u->detail, via, db,
                        dir ? " (the header is below " : "", dir ? dir : "", dir ? ")" : "");
        else if (dir)
            diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                        "'%s' not found%s: " NOT_CHECKED "; it is below %s: add that to "
                        "include-dirs: in .gpulint.yaml or pass the build's compile "
                        "database with -p DIR%s",
                        u->detail, via, dir, alone);
        else
            diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                        "'%s' not found%s: " NOT_CHECKED "; add the directory that holds it "
                        "to include-dirs: in .gpulint.yaml or pass the build's compile "
                        "database with -p DIR; for a CUDA toolkit header set CUDA_PATH to the "
                        "toolkit (default /usr/local/cuda)%s",
                        u->detail, via, alone);
        free(db);
        free(alone);
        free(dir);
        break;
    }
    case UNCHECKED_FATAL: {
        char *db = unlisted(a, fi);
        diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                    "clang stopped: %s%s: " NOT_CHECKED "; %s", u->detail, via,
                    db ? db : FLAGS_FIX);
        free(db);
        break;
    }
    case UNCHECKED_NO_CUDA:
        diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                    "no CUDA toolkit at %s (no include/cuda_runtime.h there): " NOT_CHECKED
                    "; set CUDA_PATH to the toolkit's root (default /usr/local/cuda)",
                    u->detail);
        break;
    case UNCHECKED_NO_TU:
        diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                    "libclang could not build a translation unit (%s): " NOT_CHECKED "; "
                    FLAGS_FIX " (a file that the build's own flags do not get through is "
                    "a gpulint bug)",
                    u->detail);
        break;
    case UNCHECKED_CRASH:
        diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                    "libclang crashed parsing it (%s): " NOT_CHECKED "; code nested very "
                    "deeply (long chains of operators or else-if) can overflow even the "
                    "parse's 1 GiB stack: split it; otherwise this is a gpulint or libclang "
                    "bug, please report it with the file", u->detail);
        break;
    case UNCHECKED_INPUT:
        diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                    "%s: " NOT_CHECKED "; raise limits: file-bytes: in .gpulint.yaml for a "
                    "large file, or exclude: it", u->detail);
        break;
    case UNCHECKED_INCLUDE_HAZARD:
        diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                    "%s: " NOT_CHECKED " (the parse would wait or read forever); include "
                    "regular files only", u->detail);
        break;
    case UNCHECKED_MACRO_INCLUDE:
        diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                    "'%s' is included here%s through an #include of a macro that gpulint "
                    "cannot follow (a stringified __VA_OPT__, an expansion "
                    "that is no file name, or a name defined nowhere it sees), so that header "
                    "was not analysed in this unit: what "
                    "this unit's types and macros make of it was not checked; name it with "
                    "a plain #include, or with a macro defined as its file name (#define "
                    "NAME \"x.h\", or -DNAME=\"x.h\" in the build's flags)",
                    u->detail, via);
        break;
    case UNCHECKED_BUDGET:
        diag_report(sink, "not-checked", path, u->loc.line, u->loc.col,
                    "its parse took longer than the budget of %s s per file: " NOT_CHECKED
                    "; raise limits: file-seconds: in .gpulint.yaml, or simplify the macros "
                    "that expand without end", u->detail);
        break;
    }
    free(via);
}

/* Whether fact k of file f is another program's unit's (report_other_units)
 * and an earlier one is that unit's too. */
static bool unit_said(const file_facts *f, size_t k)
{
    const char *unit = f->not_checked[k].unit;
    for (size_t j = 0; unit && j < k; j++)
        if (f->not_checked[j].unit && strcmp(f->not_checked[j].unit, unit) == 0)
            return true;
    return false;
}

/* What kept other programs' units from being checked before they had read
 * this header in full (extract/extract.c drops what failed after): one
 * finding a header, at the first unit's first cause. Each cause is
 * reported at its unit's own file, with its fix; here, that what those
 * programs make of the header was not checked (the header may be checked
 * in full in its own unit). A finding a unit made a library header that
 * twenty test programs include say the same twenty times (cuCollections:
 * 880 findings at 96 headers, docs/realcode.md). */
static void report_other_units(const analysis *a, size_t fi, size_t k, diag_sink *sink)
{
    const file_facts *f = a->facts[fi];
    const fact_not_checked *u = &f->not_checked[k];
    size_t more = 0, units = 1;
    for (size_t j = k + 1; j < f->n_not_checked; j++) {
        if (!f->not_checked[j].unit)
            continue;
        more += strcmp(f->not_checked[j].unit, u->unit) == 0;
        units += !unit_said(f, j);
    }
    char *via = shown_via(a->snap, u->via);
    char *cause = u->cause == UNCHECKED_MISSING_INCLUDE
                      ? xasprintf("'%s' not found%s", u->detail, via)
                  : u->cause == UNCHECKED_FATAL ? xasprintf("clang stopped: %s%s", u->detail, via)
                                                : xstrdup(u->detail);
    char *and_more = more ? xasprintf(", and %zu more", more) : xstrdup("");
    if (units == 1)
        diag_report(sink, "not-checked", a->snap->files[fi].path, u->loc.line, u->loc.col,
                    "the unit of %s, another program that includes this header, was not "
                    "checked before it had read this header in full (%s%s: reported at %s "
                    "with its fix): what that program's types and macros make of this header "
                    "was not checked (in its own unit it may be)",
                    u->unit, cause, and_more, u->unit);
    else
        diag_report(sink, "not-checked", a->snap->files[fi].path, u->loc.line, u->loc.col,
                    "the units of %zu other programs that include this header were not "
                    "checked before they had read it in full (the first, %s: %s%s: reported "
                    "there with its fix; each other unit's cause is reported at its own "
                    "file): what those programs' types and macros make of this header was "
                    "not checked (in its own unit it may be)",
                    units, u->unit, cause, and_more);
    free(and_more);
    free(cause);
    free(via);
}

/* One finding for all the errors of a header parsed without the context
 * of an includer (rules/lost_header.h), at the first: they follow from
 * that one cause. */
static void report_lost(const analysis *a, size_t fi, const lost_header *lost, diag_sink *sink)
{
    const file_facts *f = a->facts[fi];
    const fact_parse_error *first = &f->parse_errors[0];
    const char *path = a->snap->files[fi].path;
    size_t n = f->n_parse_errors;
    switch (lost->reason) {
    case LOST_NOT_FOUND:
        diag_report(sink, "not-checked", path, first->loc.line, first->loc.col,
                    "%s includes this header as '%s' but could not find it, so it was parsed "
                    "on its own, without the types and macros of its includer: %zu error%s (the "
                    "first: %s): " NOT_CHECKED "; add %s to include-dirs: in .gpulint.yaml or "
                    "pass the build's compile database with -p DIR",
                    lost->includer, lost->spelling, n, n == 1 ? "" : "s", first->message,
                    lost->dir);
        break;
    case LOST_UNTAKEN_BRANCH:
        if (lost->macro) {
            diag_report(sink, "not-checked", path, first->loc.line, first->loc.col,
                        "this header is named by the macro %s at %s, which an #include "
                        "expands, only in a preprocessor branch that this build does not take "
                        "(the unit of %s does not include it), so it was parsed on its own, "
                        "without the types and macros of its includer: %zu error%s (the "
                        "first: %s): " NOT_CHECKED "; to check it, give gpulint the flags of "
                        "a build that takes that branch (-p DIR, defines: in .gpulint.yaml), "
                        "or exclude it",
                        lost->macro, lost->includer, lost->unit, n, n == 1 ? "" : "s",
                        first->message);
            break;
        }
        diag_report(sink, "not-checked", path, first->loc.line, first->loc.col,
                    "%s includes this header only in a preprocessor branch that this build "
                    "does not take (the unit of %s does not include it), so it was parsed on "
                    "its own, without the types and macros of its includer: %zu error%s (the "
                    "first: %s): " NOT_CHECKED "; to check it, give gpulint the flags of a "
                    "build that takes that branch (-p DIR, defines: in .gpulint.yaml), or "
                    "exclude it",
                    lost->includer, lost->unit, n, n == 1 ? "" : "s", first->message);
        break;
    case LOST_NO_UNIT:
        diag_report(sink, "not-checked", path, first->loc.line, first->loc.col,
                    "%s includes this header as '%s', but no unit of this build reaches that "
                    "#include and finds it there (a preprocessor branch the build does not "
                    "take, or an include directory gpulint was not given), so it was parsed "
                    "on its own, without the types and macros of its includer: %zu error%s (the "
                    "first: %s): " NOT_CHECKED "; give gpulint the build's flags (-p DIR, "
                    "include-dirs: in .gpulint.yaml), or exclude another compiler's or "
                    "platform's header",
                    lost->includer, lost->spelling, n, n == 1 ? "" : "s", first->message);
        break;
    case LOST_UNFOLLOWED:
        diag_report(sink, "not-checked", path, first->loc.line, first->loc.col,
                    "%s includes this header through an #include of a macro that gpulint "
                    "cannot follow, so it was parsed on its own, without the types and macros "
                    "of its includer: %zu error%s (the first: %s): " NOT_CHECKED "; name it "
                    "with a plain #include, or with a macro defined as its file name",
                    lost->includer, n, n == 1 ? "" : "s", first->message);
        break;
    case LOST_DIFFERING_COPY:
        diag_report(sink, "not-checked", path, first->loc.line, first->loc.col,
                    "the unit of %s opens %s in place of this header (an #include that "
                    "names this header finds that file first on the unit's include path: a "
                    "copy, as a build's output directory holds), and its content differs "
                    "from this file's, so this file was parsed on its own, without the types "
                    "and macros of its includer: %zu error%s (the first: %s): " NOT_CHECKED
                    " in that unit; rebuild so that the copy is this file again, or put this "
                    "file's directory first on the include path",
                    lost->unit, lost->copy, n, n == 1 ? "" : "s", first->message);
        break;
    case LOST_MACRO:
        diag_report(sink, "not-checked", path, first->loc.line, first->loc.col,
                    "this header is named by the macro %s at %s, which an #include expands, "
                    "and by no #include line, but no unit of this build reaches an #include "
                    "of that macro (a preprocessor branch the build does not take, or an "
                    "include directory gpulint was not given), so it was parsed on its own: "
                    "%zu error%s (the first: %s): " NOT_CHECKED "; give gpulint the build's "
                    "flags (-p DIR, include-dirs: in .gpulint.yaml), or exclude another "
                    "compiler's or platform's header",
                    lost->macro, lost->includer, n, n == 1 ? "" : "s", first->message);
        break;
    case LOST_NO_INCLUDER:
        diag_report(sink, "not-checked", path, first->loc.line, first->loc.col,
                    "no file analysed includes this header, so it was parsed on its own, "
                    "without the types and macros an includer would give it: %zu error%s (the "
                    "first: %s): " NOT_CHECKED "; the code that includes it (or the build that "
                    "generates its context) is not among the paths given: analyse this header "
                    "with a file that includes it (or pass the build's compile database with "
                    "-p DIR); a header that nothing includes at all must compile on its own "
                    "(include what it uses), or be excluded",
                    n, n == 1 ? "" : "s", first->message);
        break;
    }
}

static void check(const analysis *a, diag_sink *sink)
{
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        bool said_other_units = false;
        for (size_t k = 0; k < a->facts[fi]->n_not_checked; k++) {
            bool said_before;
            size_t more = said_with(a->facts[fi], k, &said_before);
            if (said_before)
                continue;
            if (!a->facts[fi]->not_checked[k].unit)
                report(a, fi, &a->facts[fi]->not_checked[k], more, sink);
            else if (!said_other_units) {
                report_other_units(a, fi, k, sink);
                said_other_units = true;
            }
        }
        lost_header lost;
        if (lost_header_find(a, fi, &lost)) {
            report_lost(a, fi, &lost, sink);
            lost_header_free(&lost);
        }
    }
}

const rule_def rule_not_checked = {
    .id = "not-checked",
    .default_severity = SEV_ERROR,
    .summary = "a file gpulint could not check in full (header not found, no CUDA toolkit, "
               "no translation unit, a crash, a bound of docs/gpulint.md's Limits, "
               "a regex limit)",
    .explain =
        "Reports a file that gpulint could not check in full: an #include that\n"
        "cannot be found, another fatal compiler error, a CUDA file with no CUDA\n"
        "toolkit where CUDA_PATH says, or a file libclang could not turn into a\n"
        "translation unit at all or whose parse crashed (gpulint then exits 3), a\n"
        "file over a bound (limits: file-bytes, file-seconds), a file with an\n"
        "#include of a FIFO or a device, a file a pattern: rule could not search\n"
        "to its end (PCRE2's match or depth limit: limits: regex-match-limit,\n"
        "regex-depth-limit), and a header that fails to parse on its own because\n"
        "no unit of this build includes it: its includer could not find it, its\n"
        "#include (or the #define of the macro an #include expands to name it)\n"
        "sits in a branch this build does not take, an #include of a macro that\n"
        "gpulint cannot follow (#__VA_OPT__) opened it, or no file analysed\n"
        "includes it (once, not one parse error per use of the types and macros\n"
        "an includer gives it; that #include is reported too). The message names\n"
        "the cause and the fix.\n"
        "\n"
        "Why: clang skips what it cannot read, so the rules see only part of the\n"
        "file and their silence means nothing. A CI job without the CUDA headers\n"
        "would otherwise pass while checking nothing. gpulint never passes what it\n"
        "did not check. Compiler errors that leave the syntax tree usable (clang and\n"
        "nvcc disagree on some CUDA code) are parse-error warnings instead.\n"
        "\n"
        "Bad:\n"
        "    #include \"tlob_generated_tables.h\"   /* in build/gen, not searched */\n"
        "Good:\n"
        "    # .gpulint.yaml\n"
        "    include-dirs: [build/gen]\n"
        "or run gpulint -p build (the build's compile_commands.json), and set\n"
        "CUDA_PATH to the CUDA toolkit (default /usr/local/cuda) for <cuda_runtime.h>\n"
        "and <cublas_v2.h>.\n"
        "\n"
        "To accept unchecked files, downgrade the rule in .gpulint.yaml:\n"
        "    rules:\n"
        "      not-checked:\n"
        "        severity: warning\n"
        "or suppress it in one file (a reason is required):\n"
        "    // gpulint: allow-file(not-checked) -- generated; checked where it is built\n",
    .check = check,
};
