#include "util/glob.h"

bool glob_match(const char *p, const char *s)
{
    for (;;) {
        if (*p == '\0')
            return *s == '\0';
        if (p[0] == '*' && p[1] == '*') {
            const char *rest = p + 2;
            // "**" followed by "/" may also stand for no directory at all:
            // "tests/**/x.c" matches "tests/x.c".
            if (*rest == '/' && glob_match(rest + 1, s))
                return true;
            for (const char *q = s;; q++) {
                if (glob_match(rest, q))
                    return true;
                if (*q == '\0')
                    return false;
            }
        }
        if (*p == '*') {
            for (const char *q = s;; q++) {
                if (glob_match(p + 1, q))
                    return true;
                if (*q == '\0' || *q == '/')
                    return false;
            }
        }
        if (*s == '\0')
            return false;
        if (*p == '?') {
            if (*s == '/')
                return false;
        } else if (*p != *s) {
            return false;
        }
        p++;
        s++;
    }
}
