/* Analysis spread over machines (a CI job matrix): `--shard K/N` extracts
 * the facts of a stable 1/N of the snapshot's files and writes them to a
 * shard file; `--merge DIR` reads the N shard files, checks that they cover
 * the snapshot as it is here (same paths, same contents) and hands the facts
 * to the rules, which then run once over all of them, cross-file rules
 * included. docs/ci.md shows a GitHub Actions matrix that does it. */
#ifndef GPULINT_SHARD_H
#define GPULINT_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"
#include "input/source.h"

typedef struct {
    unsigned k, n;   /* shard k of n, 1 <= k <= n */
} shard_spec;

/* "K/N" -> spec; false when it is not two numbers with 1 <= K <= N <= 4096. */
bool shard_parse(const char *text, shard_spec *spec);

/* Whether the file at this (reported) path belongs to shard spec: by a hash
 * of the path, so every machine agrees without talking to the others. */
bool shard_owns(const shard_spec *spec, const char *path);

/* Write DIR/shard-K-of-N.json: for each file the shard owns, its path, its
 * content hash and its facts (what it could not check among them). Returns
 * 0, or -1 with *error set (malloc'd). */
int shard_write(const char *dir, const shard_spec *spec, const snapshot *snap,
                file_facts *const *facts, size_t *written, char **error);

/* Fill facts[i] for every file of snap from DIR's shard files, which must be
 * all N of one run. Returns 0, or -1 with *error set: a shard missing, or a
 * file of the snapshot that no shard has with this content. */
int shard_merge(const char *dir, const snapshot *snap, file_facts **facts, char **error);

#endif
