/* System includes hoisted past project headers into a C file's include set.
 *
 * An analyzer file starts with its own header, then <stdio.h>,
 * <clang-c/Index.h>, jansson...: the set ended at the project header, so
 * those were parsed in every unit. A set may now hold the system includes
 * that follow project headers P, when moving them before P cannot change
 * what either side means. P is P and every snapshot header it includes
 * (transitively); its words are the identifiers of its text, comments and
 * strings aside, directive lines included. The proof, each part checked:
 *
 * 1. P's directives are only its include guard (or #pragma once),
 *    #include, #define, #undef and conditionals (no #error, #line, other
 *    pragmas), every include names a snapshot file that P may cross too or
 *    a system header, and P does not use __COUNTER__. Checked on the text,
 *    in the parent (hoist_cross).
 * 2. No macro P defines or removes (its guard too) is named anywhere in the
 *    files the set's PCH was built from: what those headers mean cannot
 *    depend on P's macros. Checked against the words of every file of the
 *    set's build (written beside its PCH, hoist_names), in the worker.
 * 3. No word of P, nor any word that a macro it names expands into
 *    (through every definition the set's build saw, transitively), is
 *    defined or removed in a file that the set reaches only through a
 *    hoisted header: every expansion and every condition in P sees the
 *    macros it saw when P came first. A file reached through a header that
 *    comes before P anyway (the file's own includes before P, P's own
 *    leading system includes) is processed before P in both orders.
 * 4. C only: in C a declaration of P can change what a system header means
 *    only if the header names it, and a system header names nothing it
 *    does not declare itself (a call or type it does not declare is an
 *    error, which makes the set's build fail and the file parse without a
 *    PCH). C++'s name lookup in templates is not so simple: not hoisted.
 *
 * As for every include set, the system headers are taken to mean the same
 * whatever order they come in (preamble.c sorts them). A file whose check
 * fails parses without a PCH (GPULINT_TRACE says "hoist refused").
 * tests/analyzer/include_sets.bats has a refused and an accepted case. */
#ifndef GPULINT_EXTRACT_HOIST_H
#define GPULINT_EXTRACT_HOIST_H

#include <stdbool.h>
#include <stddef.h>

#include "extract/libclang_api.h"
#include "extract/reach.h"
#include "input/source.h"

typedef struct {
    char **macros;      /* every macro the crossed headers define, guards too (sorted) */
    size_t nmacros;
    char **words;       /* every identifier of their code (sorted, once each) */
    size_t nwords;
    size_t nvisited;
    const source_file **visited;   /* the crossed headers, each checked once */
    bool crossed;       /* a project header was crossed */
} hoist_info;

/* Whether a file's include set may go on past its include of `header`
 * (part 1 above); adds the header's macros and words to info. */
bool hoist_cross(const source_file *header, const snapshot_reach *reach, hoist_info *info);

/* Sort info's lists and drop repeats, once all headers are crossed. */
void hoist_info_finish(hoist_info *info);

void hoist_info_free(hoist_info *info);

/* The names parts 2 and 3 check, from the translation unit of a set's
 * prelude (malloc'd text, written beside its PCH at hoist_names_path):
 * "W word" for each word of every file it read; "D name chain" for each
 * macro that a file it entered defines (its definition cursors: the build
 * has the detailed preprocessing record) or #undefs (any #undef line), once
 * per chain of angled includes that entered that file ("<a.h> <b.h>", the
 * prelude's first). No such file: no file hoists with the set. */
char *hoist_names(CXTranslationUnit tu);

char *hoist_names_path(const char *pch_path);

/* Parts 2 and 3 for a file whose set (the PCH at pch_path) holds includes
 * hoisted past the headers of info; `unhoisted` is the set the file had
 * without hoisting (preamble_leading_includes): those headers come before
 * P in the file too, and a macro is P's to see already when every chain
 * that entered a file defining it passes through one of them. */
bool hoist_safe(const char *pch_path, const char *unhoisted, const hoist_info *info);

#endif
