/* The note of a finding from a macro's body (rules/rule.h). A check macro
 * that drops a status, or an upload macro, is reported at each of its
 * uses, as docs/gpulint.md's location contract says; without the note
 * each reads as a separate fault. */
#include <stdlib.h>
#include <string.h>

#include "rules/rule.h"
#include "util/xalloc.h"

void macro_sites_add(macro_sites *s, const char *site)
{
    const char *colon = site ? strrchr(site, ':') : NULL;
    if (!colon)
        return;
    char *abs = xstrndup(site, (size_t)(colon - site));
    const char *path = shown_path(s->snap, abs);
    char *shown = path ? xasprintf("%s%s", path, colon) : NULL;
    free(abs);
    for (size_t i = 0; shown && i < s->n; i++)
        if (strcmp(s->sites[i], shown) == 0) {
            free(shown);
            return;
        }
    if (shown)
        *XPUSH(s->sites, s->n) = shown;
}

char *macro_sites_note(const macro_sites *s)
{
    if (s->n == 0)
        return xstrdup("");
    char *list = xstrdup(s->sites[0]);
    for (size_t i = 1; i < s->n; i++) {
        char *longer = xasprintf("%s%s%s", list, i + 1 == s->n ? " and " : ", ", s->sites[i]);
        free(list);
        list = longer;
    }
    char *note = xasprintf(" (written in a macro's body at %s: one change there mends every "
                           "use)", list);
    free(list);
    return note;
}

void macro_sites_free(macro_sites *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->sites[i]);
    free(s->sites);
    memset(s, 0, sizeof *s);
}
