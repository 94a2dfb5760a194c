/* The note of a finding from a macro's body (rules/rule.h). A check macro
 * that drops a status, or an upload macro, is reported at each of its
 * uses, as docs/gpulint.md's location contract says; without the note
 * each reads as a separate fault. */
#include "rules/rule.h"
#include "util/xalloc.h"

char *macro_site_note(const char *site)
{
    if (!site)
        return xstrdup("");
    return xasprintf(" (written in a macro's body at %s: one change there mends every use)",
                     site);
}
