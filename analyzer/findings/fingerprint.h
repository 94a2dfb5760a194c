/* Fingerprints of findings that survive edits elsewhere in the file: no line
 * numbers, only the rule, the file and the finding's source line with its
 * whitespace normalised. Baselines (findings/baseline.c) and SARIF's
 * partialFingerprints use them. */
#ifndef GPULINT_FINGERPRINT_H
#define GPULINT_FINGERPRINT_H

#include "diag/diag.h"
#include "input/source.h"

/* Hex SHA-256 of rule, file and the normalised text of the finding's line
 * (the message when the line is not available) into out[65]. Identical
 * lines with the same finding share a key; callers count occurrences. */
void finding_key(const snapshot *snap, const diag_finding *f, char out[65]);

/* The line's text with leading/trailing whitespace dropped and inner runs of
 * whitespace collapsed to one space (malloc'd). */
char *normalise_line(const char *line, size_t len);

#endif
