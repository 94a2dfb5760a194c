/* JSON strings from text that may not be UTF-8 (a path or source line of a
 * Latin-1 file): jansson rejects invalid UTF-8, so invalid bytes become
 * U+FFFD instead of silently dropping the finding. */
#ifndef GPULINT_JSON_TEXT_H
#define GPULINT_JSON_TEXT_H

#include <jansson.h>

json_t *json_text(const char *s);

#endif
