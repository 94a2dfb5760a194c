/* util/files.h. */
#define _GNU_SOURCE
#include "util/files.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

char *files_load_text(const char *path, const char *what, size_t max_bytes, size_t *len_out,
                      char **error)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *error = xasprintf("%s: error: cannot read the %s: %s", path, what, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max_bytes) {
        *error = S_ISREG(st.st_mode)
                     ? xasprintf("%s: error: the %s is %lld bytes, more than the %zu gpulint reads",
                                 path, what, (long long)st.st_size, max_bytes)
                     : xasprintf("%s: error: the %s is not a regular file", path, what);
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size, len = 0;
    char *text = xmalloc(size + 1);
    while (len < size) {
        ssize_t n = read(fd, text + len, size - len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    text[len] = '\0';
    *len_out = len;
    return text;
}

json_t *files_load_json(const char *path, const char *what, size_t max_bytes, char **error)
{
    size_t len;
    char *text = files_load_text(path, what, max_bytes, &len, error);
    if (!text)
        return NULL;
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    if (!doc)
        *error = xasprintf("%s:%d:%d: error: the %s is not valid JSON: %s", path, jerr.line,
                           jerr.column, what, jerr.text);
    return doc;
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

int files_write_atomically(const char *path, const char *data, size_t len, char **error)
{
    char *copy = xstrdup(path);
    char *tmp = xasprintf("%s/.%s.XXXXXX", dirname(copy), strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    free(copy);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        *error = xasprintf("cannot write '%s': %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    bool ok = fchmod(fd, 0666 & ~mask) == 0 && write_all(fd, data, len) && fsync(fd) == 0;
    int saved = errno;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) != 0) {
        saved = errno;
        ok = false;
    }
    if (!ok) {
        unlink(tmp);
        *error = xasprintf("cannot write '%s' (left as it was): %s", path,
                           strerror(saved ? saved : errno));
    }
    free(tmp);
    return ok ? 0 : -1;
}

void files_put_visible(FILE *out, const char *s, size_t len, int keep_tabs)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && !(keep_tabs && c == '\t')) || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
}
