/* Parameters to and from safetensors files: an 8-byte little-endian header
 * length, a JSON header {"<name>": {"dtype": "F32", "shape": [...],
 * "data_offsets": [begin, end]}, "__metadata__": {...}} (jansson parses and
 * writes it), then the raw little-endian tensors, offsets relative to the
 * byte after the header. Only F32 tensors of the published names and shapes
 * are read; other entries are ignored. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "host_file.h"
#include "status.h"
#include "tlob.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors tensors are little-endian; this unit copies them as host floats"
#endif

/* Headers beyond this are not parameter files (safetensors' own limit). */
#define MAX_HEADER_BYTES ((uint64_t)100 << 20)

typedef struct {
    FILE *f;
    long long data_start, file_size;
} st_file;

static tlob_status open_file(const char *path, st_file *sf, json_t **header) {
    *header = NULL;
    TLOB_CHECK(host_file_open_read(path, &sf->f, &sf->file_size));
    unsigned char len_bytes[8];
    if (fread(len_bytes, 1, 8, sf->f) != 8)
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: not a safetensors file (shorter than 8 bytes)", path);
    uint64_t len = 0;
    for (int i = 7; i >= 0; i--) len = len << 8 | len_bytes[i];
    if (len < 2 || len > MAX_HEADER_BYTES || (long long)len > sf->file_size - 8)
        return TLOB_FAIL(TLOB_ERR_FORMAT,
                         "%s: not a safetensors file (header length %llu, file %lld bytes)", path,
                         (unsigned long long)len, sf->file_size);
    char *text = malloc(len);
    if (!text) return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "%s: %llu-byte header", path,
                                (unsigned long long)len);
    if (fread(text, 1, len, sf->f) != len) {
        free(text);
        return TLOB_FAIL(TLOB_ERR_IO, "%s: cannot read the header", path);
    }
    json_error_t err;
    *header = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!*header)
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: header is not JSON: %s (header byte %d)", path,
                         err.text, err.position);
    if (!json_is_object(*header))
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: header is not a JSON object", path);
    sf->data_start = 8 + (long long)len;
    return TLOB_OK;
}

/* Reads tensor `t` from the file into dst, checking its entry first. */
static tlob_status read_tensor(const char *path, st_file *sf, json_t *header,
                               const tlob_tensor_info *t, float *dst) {
    json_t *entry = json_object_get(header, t->name);
    if (!entry) return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: tensor '%s' is missing", path, t->name);
    const char *dtype = json_string_value(json_object_get(entry, "dtype"));
    json_t *shape = json_object_get(entry, "shape"), *offsets = json_object_get(entry, "data_offsets");
    if (!json_is_object(entry) || !dtype || !json_is_array(shape) || !json_is_array(offsets) ||
        json_array_size(offsets) != 2 || !json_is_integer(json_array_get(offsets, 0)) ||
        !json_is_integer(json_array_get(offsets, 1)))
        return TLOB_FAIL(TLOB_ERR_FORMAT,
                         "%s: tensor '%s': entry lacks a dtype, shape or data_offsets [begin, end]",
                         path, t->name);
    if (strcmp(dtype, "F32") != 0)
        return TLOB_FAIL(TLOB_ERR_FORMAT, "%s: tensor '%s': dtype %s, expected F32", path, t->name,
                         dtype);
    char got[128] = "(", want[64];
    int same = (int)json_array_size(shape) == t->ndim;
    for (size_t i = 0; i < json_array_size(shape); i++) {
        json_t *d = json_array_get(shape, i);
        const size_t used = strlen(got);
        snprintf(got + used, sizeof got - used, "%s%lld", i ? ", " : "",
                 json_is_integer(d) ? (long long)json_integer_value(d) : -1LL);
        if (!json_is_integer(d) || (i < 2 && json_integer_value(d) != t->shape[i])) same = 0;
    }
    strncat(got, ")", sizeof got - strlen(got) - 1);
    if (t->ndim == 2) snprintf(want, sizeof want, "(%d, %d)", t->shape[0], t->shape[1]);
    else snprintf(want, sizeof want, "(%d)", t->shape[0]);
    if (!same)
        return TLOB_FAIL(TLOB_ERR_SHAPE, "%s: tensor '%s': shape %s, expected %s", path, t->name,
                         got, want);
    const long long begin = json_integer_value(json_array_get(offsets, 0)),
                    end = json_integer_value(json_array_get(offsets, 1));
    /* Compared without arithmetic that can overflow: the offsets are the
     * file's, any 64-bit value (data_start <= file_size, open_file). */
    if (begin < 0 || end < begin || end > sf->file_size - sf->data_start ||
        end - begin != (long long)(t->numel * sizeof(float)))
        return TLOB_FAIL(TLOB_ERR_FORMAT,
                         "%s: tensor '%s': data_offsets [%lld, %lld] do not hold %zu floats "
                         "inside the file's %lld data bytes",
                         path, t->name, begin, end, t->numel, sf->file_size - sf->data_start);
    if (fseek(sf->f, (long)(sf->data_start + begin), SEEK_SET) != 0 ||
        fread(dst, sizeof(float), t->numel, sf->f) != t->numel)
        return TLOB_FAIL(TLOB_ERR_IO, "%s: tensor '%s': cannot read its data", path, t->name);
    return TLOB_OK;
}

tlob_status tlob_read_safetensors_host(const char *path, int dim, int heads, int out_dim,
                                       float *host) {
    if (!path || !host) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    TLOB_CHECK(tlob_param_layout(dim, heads, out_dim, t, &total));
    st_file sf = {0};
    json_t *header;
    tlob_status st = open_file(path, &sf, &header);
    for (int i = 0; st == TLOB_OK && i < TLOB_NUM_TENSORS; i++)
        st = read_tensor(path, &sf, header, &t[i], host + t[i].offset);
    json_decref(header);
    if (sf.f) fclose(sf.f);
    return st;
}

/* The JSON header of the layout, padded with spaces to a multiple of 8 bytes
 * (as safetensors' own writer does, so the data stays aligned). */
static char *make_header(const tlob_tensor_info *t, size_t *len) {
    json_t *root = json_object();
    json_object_set_new(root, "__metadata__", json_pack("{s:s}", "format", "pt"));
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
        json_t *shape = t[i].ndim == 2 ? json_pack("[i,i]", t[i].shape[0], t[i].shape[1])
                                       : json_pack("[i]", t[i].shape[0]);
        const json_int_t begin = (json_int_t)(t[i].offset * sizeof(float)),
                         end = begin + (json_int_t)(t[i].numel * sizeof(float));
        json_object_set_new(root, t[i].name,
                            json_pack("{s:s,s:o,s:[I,I]}", "dtype", "F32", "shape", shape,
                                      "data_offsets", begin, end));
    }
    char *text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text) return NULL;
    const size_t n = strlen(text), padded = (n + 7) / 8 * 8;
    char *out = realloc(text, padded + 1);
    if (!out) {
        free(text);
        return NULL;
    }
    memset(out + n, ' ', padded - n);
    out[padded] = '\0';
    *len = padded;
    return out;
}

tlob_status tlob_write_safetensors_host(const char *path, int dim, int heads, int out_dim,
                                        const float *host) {
    if (!path || !host) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total, len;
    TLOB_CHECK(tlob_param_layout(dim, heads, out_dim, t, &total));
    char *header = make_header(t, &len);
    if (!header) return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "%s: building the header", path);
    unsigned char len_bytes[8];
    for (int i = 0; i < 8; i++) len_bytes[i] = (unsigned char)((uint64_t)len >> (8 * i));
    host_file_out out;
    const tlob_status st = host_file_create(path, &out);
    if (st != TLOB_OK) {
        free(header);
        return st;
    }
    /* The flat layout is packed in the header's order: one write of it all. */
    const int ok = fwrite(len_bytes, 1, 8, out.f) == 8 && fwrite(header, 1, len, out.f) == len &&
                   fwrite(host, sizeof(float), total, out.f) == total;
    free(header);
    return host_file_commit(&out, ok);
}
