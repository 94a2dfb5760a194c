/* Kernel launches written with spaced brackets, `k << <grid, block >> > (args)`
 * (as some editors format `<<<` and `>>>`): nvcc compiles them, clang reads
 * `<<` then `<` and stops with "expected expression" (NVIDIA/xmrig-cuda's
 * launches, docs/realcode.md). */
#ifndef GPULINT_LAUNCH_BRACKETS_H
#define GPULINT_LAUNCH_BRACKETS_H

#include <stddef.h>

/* A copy of text (len bytes, NUL-terminated) whose spaced launch brackets
 * are closed up, `<< <` as `<<< ` and `>> >` as `>>> `: same length, so
 * every offset, line and column stays; NULL when there is none. masked is
 * text with comments and literals blanked (input/mask.h). A `<<` then `<`
 * opens a launch (no expression starts with `<`) unless `operator` comes
 * before it (`operator<< <>`, a template's explicit arguments); its close is
 * the first `>>>` or spaced `>> >` after it outside brackets, before any `;`
 * `{` `}`, so a template's spaced closers (`Box<Box<int>> >`) are not one. */
char *launch_brackets_closed(const char *text, const char *masked, size_t len);

#endif
