/* Kernel launches written in ways nvcc compiles and clang's parser stops
 * at with "expected expression": spaced brackets, `k << <grid, block >> >
 * (args)` (as some editors format `<<<` and `>>>`; NVIDIA/xmrig-cuda's
 * launches), and a configuration argument written as a braced list,
 * `k<<<blocks, {16, 16, 1}, 0, stream>>>(args)` (NVIDIA/apex's index_mul_2d;
 * docs/realcode.md). */
#ifndef GPULINT_LAUNCH_BRACKETS_H
#define GPULINT_LAUNCH_BRACKETS_H

#include <stddef.h>

/* A copy of text (len bytes, NUL-terminated) that clang parses as nvcc
 * does, or NULL when nothing needs to change: spaced launch brackets closed
 * up, `<< <` as `<<< ` and `>> >` as `>>> `, and a configuration argument
 * that is a braced list parenthesised, `{16, 16, 1}` as `(16, 16, 1)` (an
 * expression clang accepts; no rule reads the configuration's values). Same
 * length, so every offset, line and column stays. masked is text with
 * comments and literals blanked (input/mask.h). A `<<` then `<` opens a
 * launch (no expression starts with `<`) unless `operator` comes before it
 * (`operator<< <>`, a template's explicit arguments); its close is the first
 * `>>>` or spaced `>> >` after it outside brackets, before any `;`, so a
 * template's spaced closers (`Box<Box<int>> >`) are not one. */
char *launch_syntax_for_clang(const char *text, const char *masked, size_t len);

#endif
