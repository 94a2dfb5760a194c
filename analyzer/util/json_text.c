#include "util/json_text.h"

#include <string.h>

#include "util/xalloc.h"

/* Length of the valid UTF-8 sequence at s, or 0 when it is invalid. */
static size_t utf8_sequence(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n;
    unsigned min;
    unsigned cp;
    if ((s[0] & 0xE0) == 0xC0)
        n = 2, min = 0x80, cp = s[0] & 0x1F;
    else if ((s[0] & 0xF0) == 0xE0)
        n = 3, min = 0x800, cp = s[0] & 0x0F;
    else if ((s[0] & 0xF8) == 0xF0)
        n = 4, min = 0x10000, cp = s[0] & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

json_t *json_text(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    byte_buf b = {0};
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_sequence(p);
        if (n) {
            buf_append(&b, p, n);
            p += n;
        } else {
            buf_append(&b, "\xEF\xBF\xBD", 3);
            p++;
        }
    }
    j = json_string(b.data ? b.data : "");
    buf_free(&b);
    return j;
}
