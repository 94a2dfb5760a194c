/* Minimal .npy reader/writer for float32 C-order arrays. The header is a
 * Python dict literal; we accept exactly the keys numpy writes ('descr',
 * 'fortran_order', 'shape') and reject what we cannot represent faithfully. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "status.h"

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

void npy_format_shape(char *buf, size_t len, int ndim, const size_t *shape) {
    size_t n = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, i ? ", %zu" : "%zu", shape[i]);
    if (n < len) n += (size_t)snprintf(buf + n, len - n, ndim == 1 ? ",)" : ")");
}

void npy_free(npy_array *array) {
    if (!array) return;
    free(array->data);
    array->data = NULL;
}

/* Finds the value text following 'key': in the header dict. */
static const char *header_value(const char *header, const char *key) {
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    const char *p = strstr(header, quoted);
    if (!p) return NULL;
    p += strlen(quoted);
    while (isspace((unsigned char)*p)) p++;
    if (*p != ':') return NULL;
    p++;
    while (isspace((unsigned char)*p)) p++;
    return p;
}

static tlob_status parse_header(const char *path, const char *header, npy_array *out) {
    const char *descr = header_value(header, "descr");
    if (!descr || *descr != '\'')
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header has no 'descr'", path);
    const char *end = strchr(descr + 1, '\'');
    if (!end) return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header 'descr' is unterminated", path);
    const size_t dlen = (size_t)(end - descr - 1);
    if (dlen != 3 || strncmp(descr + 1, "<f4", 3) != 0)
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: dtype '%.*s' is not little-endian float32 ('<f4')",
                         path, (int)(dlen < 32 ? dlen : 32), descr + 1);

    const char *fortran = header_value(header, "fortran_order");
    if (!fortran) return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header has no 'fortran_order'", path);
    /* The whole word: 'Falsehood' is not False. */
    if (strncmp(fortran, "True", 4) == 0 && !isalnum((unsigned char)fortran[4]))
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: array is in Fortran order; C order is required",
                         path);
    if (strncmp(fortran, "False", 5) != 0 || isalnum((unsigned char)fortran[5]) ||
        fortran[5] == '_')
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header 'fortran_order' is neither True nor False",
                         path);
    /* Exactly numpy's three keys: another one means a format we would
     * misread. Every key is a quoted string followed by ':'. */
    int keys = 0;
    for (const char *q = strchr(header, '{') + 1; (q = strchr(q, '\'')) != NULL; ) {
        const char *close = strchr(q + 1, '\'');
        if (!close) break;
        const char *after = close + 1;
        while (isspace((unsigned char)*after)) after++;
        if (*after == ':') {
            size_t n = (size_t)(close - q - 1);
            if (!((n == 5 && strncmp(q + 1, "descr", 5) == 0) ||
                  (n == 13 && strncmp(q + 1, "fortran_order", 13) == 0) ||
                  (n == 5 && strncmp(q + 1, "shape", 5) == 0)))
                return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header has the unknown key '%.*s'",
                                 path, (int)(n < 32 ? n : 32), q + 1);
            keys++;
        }
        q = close + 1;
    }
    if (keys != 3)
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header must have exactly 'descr', "
                         "'fortran_order' and 'shape'", path);

    const char *shape = header_value(header, "shape");
    if (!shape || *shape != '(')
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header has no 'shape' tuple", path);
    const char *p = shape + 1;
    out->ndim = 0;
    out->numel = 1;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (*p == ')') break;
        if (!isdigit((unsigned char)*p))
            return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header 'shape' is malformed", path);
        if (out->ndim == NPY_MAX_DIMS)
            return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: more than %d dimensions", path, NPY_MAX_DIMS);
        errno = 0;
        char *after;
        const unsigned long long v = strtoull(p, &after, 10);
        if (errno || v > (1ull << 40))
            return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header 'shape' has a huge dimension", path);
        out->shape[out->ndim++] = (size_t)v;
        if (v && out->numel > (SIZE_MAX / 8) / v)
            return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: array too large", path);
        out->numel *= (size_t)v;
        p = after;
        while (isspace((unsigned char)*p)) p++;
        if (*p == ',') p++;
        else if (*p != ')')
            return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header 'shape' is malformed", path);
    }
    return TLOB_OK;
}

/* Reads path; with want_shape, a file of another shape is refused from its
 * header, before its data is allocated or read. */
static tlob_status read_npy(const char *path, int want_ndim, const size_t *want_shape,
                            npy_array *out) {
    if (!path || !out) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    memset(out, 0, sizeof *out);
    FILE *f;
    long long file_size;
    TLOB_CHECK(host_file_open_read(path, &f, &file_size));

    tlob_status st = TLOB_OK;
    char *header = NULL;
    unsigned char pre[10];
    if (fread(pre, 1, 8, f) != 8 || memcmp(pre, npy_magic, 6) != 0) {
        st = TLOB_FAIL(TLOB_ERR_FORMAT, "%s: not a .npy file (bad magic)", path);
        goto done;
    }
    size_t hlen;
    if (pre[6] == 1) {
        if (fread(pre + 8, 1, 2, f) != 2) goto truncated;
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        unsigned char l[4];
        if (fread(l, 1, 4, f) != 4) goto truncated;
        hlen = (size_t)l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;
        if (hlen > (1u << 20)) {
            st = TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header length %zu is implausible", path, hlen);
            goto done;
        }
    } else {
        st = TLOB_FAIL(TLOB_ERR_FORMAT, "%s: unsupported .npy format version %d.%d", path, pre[6],
                       pre[7]);
        goto done;
    }
    header = malloc(hlen + 1);
    if (!header) {
        st = TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "%s: no memory for the header", path);
        goto done;
    }
    if (fread(header, 1, hlen, f) != hlen) goto truncated;
    header[hlen] = '\0';
    /* A NUL would hide the rest of the header from the parser below. */
    if (memchr(header, '\0', hlen) != NULL) {
        st = TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header holds a NUL byte at offset %zu", path,
                       (size_t)((char *)memchr(header, '\0', hlen) - header));
        goto done;
    }
    const char *open_brace = header + strspn(header, " \t\n"), *close_brace = strrchr(header, '}');
    if (*open_brace != '{' || !close_brace || close_brace[strspn(close_brace + 1, " \t\n") + 1]) {
        st = TLOB_FAIL(TLOB_ERR_FORMAT, "%s: .npy header is not a dict (padded with spaces)", path);
        goto done;
    }
    st = parse_header(path, header, out);
    if (st != TLOB_OK) goto done;
    if (want_shape) {
        int same = out->ndim == want_ndim;
        for (int i = 0; same && i < want_ndim; i++) same = out->shape[i] == want_shape[i];
        if (!same) {
            char want[128], got[128];
            npy_format_shape(want, sizeof want, want_ndim, want_shape);
            npy_format_shape(got, sizeof got, out->ndim, out->shape);
            st = TLOB_FAIL(TLOB_ERR_SHAPE, "%s: shape %s, expected %s", path, got, want);
            goto done;
        }
    }
    /* The data the shape claims must be in the file before any of it is
     * allocated: a header of (10**12,) on a 100-byte file is an error, not
     * a 4 TB allocation. */
    const long data_at = ftell(f);
    if (data_at < 0 || (unsigned long long)(file_size - data_at) / sizeof(float) < out->numel) {
        st = TLOB_FAIL(TLOB_ERR_FORMAT, "%s: the header's shape needs %zu floats, the file holds %lld",
                       path, out->numel, (long long)((file_size - data_at) / 4));
        goto done;
    }

    out->data = malloc(out->numel ? out->numel * sizeof(float) : 1);
    if (!out->data) {
        st = TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "%s: no memory for %zu floats", path, out->numel);
        goto done;
    }
    if (fread(out->data, sizeof(float), out->numel, f) != out->numel) goto truncated;
    if (fgetc(f) != EOF) {
        st = TLOB_FAIL(TLOB_ERR_FORMAT, "%s: data is longer than the shape in the header", path);
        goto done;
    }
    goto done;
truncated:
    st = TLOB_FAIL(TLOB_ERR_FORMAT, "%s: file is truncated", path);
done:
    free(header);
    fclose(f);
    if (st != TLOB_OK) npy_free(out);
    return st;
}

tlob_status npy_read_f32(const char *path, npy_array *out) {
    return read_npy(path, 0, NULL, out);
}

tlob_status npy_read_f32_shape(const char *path, int ndim, const size_t *shape,
                               npy_array *out) {
    if (!shape) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    return read_npy(path, ndim, shape, out);
}

tlob_status npy_write_f32_pending(const char *path, const float *data, int ndim,
                                  const size_t *shape, host_file_out *out) {
    if (!path || (!data && ndim > 0) || ndim < 0 || ndim > NPY_MAX_DIMS)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "npy_write_f32: bad argument");
    char shape_text[256];
    npy_format_shape(shape_text, sizeof shape_text, ndim, shape);
    if (ndim == 0) snprintf(shape_text, sizeof shape_text, "()");
    char header[512];
    int n = snprintf(header, sizeof header, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }",
                     shape_text);
    /* Pad with spaces so that magic + length + header ends on a 64-byte
     * boundary, then a newline, as numpy does. */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    memset(header + n, ' ', pad);
    header[n + pad] = '\n';
    const size_t hlen = (size_t)n + pad + 1;
    size_t numel = 1;
    for (int i = 0; i < ndim; i++) numel *= shape[i];

    TLOB_CHECK(host_file_create(path, out));
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    const int ok = fwrite(pre, 1, 10, out->f) == 10 && fwrite(header, 1, hlen, out->f) == hlen &&
                   fwrite(data, sizeof(float), numel, out->f) == numel;
    return host_file_finish(out, ok);
}

tlob_status npy_write_f32(const char *path, const float *data, int ndim, const size_t *shape) {
    host_file_out out;
    TLOB_CHECK(npy_write_f32_pending(path, data, ndim, shape, &out));
    return host_file_rename(&out);
}
