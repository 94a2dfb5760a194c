/* safetensors parameter files: a round trip of the layout, a file written
 * here byte by byte (as PyTorch's writer lays it out: other tensors, another
 * order, extra metadata) read by name, and rejection of bad files with an
 * error that names the file and the tensor. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tlob.h"

static char dir[] = "/tmp/tlob-test-safetensors-XXXXXX";

static const char *path_of(const char *name) {
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

/* A file of the given JSON header (unpadded) and data bytes. */
static void write_file(const char *name, const char *header, const void *data, size_t n) {
    FILE *f = fopen(path_of(name), "wb");
    const uint64_t len = strlen(header);
    unsigned char lb[8];
    for (int i = 0; i < 8; i++) lb[i] = (unsigned char)(len >> (8 * i));
    fwrite(lb, 1, 8, f);
    fwrite(header, 1, len, f);
    if (n) fwrite(data, 1, n, f);
    fclose(f);
}

/* The header of TransformerLayer(1, 1, 1) (E = 1, 4D = 4) with every
 * tensor's offsets in layout order, tensor `skip` left out or, with
 * `replace`, its entry's text replaced. */
static void layout_header(char *buf, size_t len, const char *skip, const char *replace,
                          const char *prefix) {
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    tlob_param_layout(1, 1, 1, t, &total);
    size_t used = (size_t)snprintf(buf, len, "{%s", prefix);
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
        if (skip && strcmp(t[i].name, skip) == 0 && !replace) continue;
        char entry[256];
        if (skip && strcmp(t[i].name, skip) == 0)
            snprintf(entry, sizeof entry, "%s", replace);
        else if (t[i].ndim == 2)
            snprintf(entry, sizeof entry, "{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[%zu,%zu]}",
                     t[i].shape[0], t[i].shape[1], 4 * t[i].offset, 4 * (t[i].offset + t[i].numel));
        else
            snprintf(entry, sizeof entry, "{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%zu,%zu]}",
                     t[i].shape[0], 4 * t[i].offset, 4 * (t[i].offset + t[i].numel));
        used += (size_t)snprintf(buf + used, len - used, "%s\"%s\":%s", used > 1 ? "," : "",
                                 t[i].name, entry);
    }
    snprintf(buf + used, len - used, "}");
}

static void expect_error(const char *name, tlob_status want, const char *tensor,
                         const char *phrase) {
    float host[64];
    const tlob_status st = tlob_read_safetensors_host(path_of(name), 1, 1, 1, host);
    CHECK(st == want, "%s: status %d, want %d (%s)", name, st, want, tlob_last_error());
    CHECK(strstr(tlob_last_error(), path_of(name)) != NULL, "%s: names the file: %s", name,
          tlob_last_error());
    if (tensor)
        CHECK(strstr(tlob_last_error(), tensor) != NULL, "%s: names tensor %s: %s", name, tensor,
              tlob_last_error());
    CHECK(strstr(tlob_last_error(), phrase) != NULL, "%s: says '%s': %s", name, phrase,
          tlob_last_error());
}

static void round_trip(int D, int nh, int O) {
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    CHECK(tlob_param_layout(D, nh, O, t, &total) == TLOB_OK, "layout");
    float *a = malloc(total * sizeof(float)), *b = malloc(total * sizeof(float));
    CHECK(tlob_init_params_host(D, nh, O, 77, a) == TLOB_OK, "init");
    for (size_t i = 0; i < total; i++) b[i] = -1e30f;
    CHECK(tlob_write_safetensors_host(path_of("rt.safetensors"), D, nh, O, a) == TLOB_OK,
          "write: %s", tlob_last_error());
    CHECK(tlob_read_safetensors_host(path_of("rt.safetensors"), D, nh, O, b) == TLOB_OK,
          "read: %s", tlob_last_error());
    CHECK(memcmp(a, b, total * sizeof(float)) == 0, "D=%d nh=%d Dout=%d: values bit for bit", D,
          nh, O);
    CHECK(tlob_read_params_any(path_of("rt.safetensors"), D, nh, O, b) == TLOB_OK,
          "read_params_any takes a file as safetensors: %s", tlob_last_error());
    /* the header is padded to 8 bytes so the data is aligned, as safetensors writes it */
    FILE *f = fopen(path_of("rt.safetensors"), "rb");
    unsigned char lb[8];
    CHECK(fread(lb, 1, 8, f) == 8 && lb[0] % 8 == 0, "header length %u is a multiple of 8", lb[0]);
    fclose(f);
    /* another shape reads none of it */
    CHECK(tlob_read_safetensors_host(path_of("rt.safetensors"), D + 1, nh, O, b) == TLOB_ERR_SHAPE,
          "wrong dim rejected");
    CHECK(strstr(tlob_last_error(), "norm.weight") != NULL, "names the first tensor: %s",
          tlob_last_error());
    free(a), free(b);
}

/* Files that are not regular files are refused at once, saying what they
 * are (a FIFO hung the reader), and none is replaced by a write. */
static void not_regular_files(void) {
    float host[64];
    CHECK(mkfifo(path_of("fifo.safetensors"), 0644) == 0, "mkfifo");
    CHECK(tlob_read_safetensors_host(path_of("fifo.safetensors"), 1, 1, 1, host) == TLOB_ERR_IO &&
              strstr(tlob_last_error(), "fifo.safetensors: is a FIFO, not a regular file"),
          "FIFO read: %s", tlob_last_error());
    CHECK(tlob_write_safetensors_host(path_of("fifo.safetensors"), 1, 1, 1, host) == TLOB_ERR_IO &&
              strstr(tlob_last_error(), "fifo.safetensors: is a FIFO; not replaced"),
          "FIFO write: %s", tlob_last_error());
    CHECK(tlob_read_params_any(path_of("fifo.safetensors"), 1, 1, 1, host) == TLOB_ERR_IO &&
              strstr(tlob_last_error(), "is a FIFO, not a regular file"),
          "FIFO as parameters: %s", tlob_last_error());
    CHECK(tlob_read_safetensors_host("/dev/null", 1, 1, 1, host) == TLOB_ERR_IO &&
              strstr(tlob_last_error(), "/dev/null: is a character device, not a regular file"),
          "device read: %s", tlob_last_error());
    CHECK(mkdir(path_of("dir.safetensors"), 0755) == 0, "mkdir");
    CHECK(tlob_read_safetensors_host(path_of("dir.safetensors"), 1, 1, 1, host) == TLOB_ERR_IO &&
              strstr(tlob_last_error(), "dir.safetensors: is a directory, not a regular file"),
          "directory read: %s", tlob_last_error());
}

/* A write that fails (a file-size limit standing in for a full disk) leaves
 * the old file byte for byte. */
static void failed_write_keeps_old(void) {
    float *v = malloc(8192 * sizeof(float));
    for (int i = 0; i < 8192; i++) v[i] = (float)i;
    CHECK(tlob_write_safetensors_host(path_of("keep.safetensors"), 1, 1, 1, v) == TLOB_OK,
          "write keep.safetensors: %s", tlob_last_error());
    struct stat before, after;
    stat(path_of("keep.safetensors"), &before);
    struct rlimit saved, small;
    getrlimit(RLIMIT_FSIZE, &saved);
    small = saved;
    small.rlim_cur = 4096;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    /* TransformerLayer(16, 2, 16): about 8,400 floats (33 KB), past the 4 KB limit. */
    const tlob_status st = tlob_write_safetensors_host(path_of("keep.safetensors"), 16, 2, 16,
                                                       (float[8192 * 4]){0});
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, old_handler);
    CHECK(st == TLOB_ERR_IO && strstr(tlob_last_error(), "keep.safetensors: write failed: File too large"),
          "full disk: %s", tlob_last_error());
    float back[64];
    CHECK(stat(path_of("keep.safetensors"), &after) == 0 && after.st_size == before.st_size &&
              tlob_read_safetensors_host(path_of("keep.safetensors"), 1, 1, 1, back) == TLOB_OK &&
              memcmp(back, v, sizeof(float) * 20) == 0,
          "the old file is intact: %s", tlob_last_error());
    free(v);
}

int main(void) {
    /* A read or write that blocks (a FIFO) must fail the suite, not hang it. */
    alarm(60);
    if (!mkdtemp(dir)) return 1;
    const tlob_status probe = tlob_read_safetensors_host(path_of("none"), 1, 1, 1, (float[64]){0});
    if (probe == TLOB_ERR_UNSUPPORTED) {
        printf("SKIP safetensors: %s\n", tlob_last_error());
        printf("0 passed, 0 failed, 1 skipped\n");
        return 0;
    }
    not_regular_files();
    failed_write_keeps_old();
    round_trip(4, 2, 3);
    round_trip(40, 1, 40);
    round_trip(5, 3, 7);

    /* A file as another writer lays it out: metadata, an unrelated tensor
     * first, entries in reverse order, the data of the unrelated tensor
     * between. Values are the index, so a wrong offset shows. */
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    tlob_param_layout(1, 1, 1, t, &total);
    char header[8192];
    size_t used = (size_t)snprintf(header, sizeof header,
                                   "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"x\"},"
                                   "\"other\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,16]}");
    float data[64 + 4] = {0};
    for (int i = TLOB_NUM_TENSORS - 1; i >= 0; i--) {
        const size_t begin = 16 + 4 * (total - t[i].offset - t[i].numel); /* reversed */
        char shape[32];
        if (t[i].ndim == 2) snprintf(shape, sizeof shape, "[%d,%d]", t[i].shape[0], t[i].shape[1]);
        else snprintf(shape, sizeof shape, "[%d]", t[i].shape[0]);
        used += (size_t)snprintf(header + used, sizeof header - used,
                                 ",\"%s\":{\"dtype\":\"F32\",\"shape\":%s,\"data_offsets\":[%zu,%zu]}",
                                 t[i].name, shape, begin, begin + 4 * t[i].numel);
        for (size_t j = 0; j < t[i].numel; j++) data[(begin - 16) / 4 + 4 + j] = (float)(t[i].offset + j);
    }
    snprintf(header + used, sizeof header - used, "}");
    write_file("foreign.safetensors", header, data, 16 + 4 * total);
    float host[64];
    CHECK(tlob_read_safetensors_host(path_of("foreign.safetensors"), 1, 1, 1, host) == TLOB_OK,
          "foreign layout read: %s", tlob_last_error());
    int by_name = 1;
    for (size_t i = 0; i < total; i++) by_name &= host[i] == (float)i;
    CHECK(by_name, "every tensor found by name and offset");

    char h[8192];
    float zeros[64] = {0};
    layout_header(h, sizeof h, "mlp.fc.bias", NULL, "");
    write_file("missing.safetensors", h, zeros, 4 * total);
    expect_error("missing.safetensors", TLOB_ERR_FORMAT, "'mlp.fc.bias'", "missing");
    layout_header(h, sizeof h, "w0.weight", "{\"dtype\":\"F64\",\"shape\":[1,1],\"data_offsets\":[0,8]}", "");
    write_file("dtype.safetensors", h, zeros, 4 * total);
    expect_error("dtype.safetensors", TLOB_ERR_FORMAT, "'w0.weight'", "dtype F64, expected F32");
    layout_header(h, sizeof h, "qkv.q.weight", "{\"dtype\":\"F32\",\"shape\":[2,1],\"data_offsets\":[0,8]}", "");
    write_file("shape.safetensors", h, zeros, 4 * total);
    expect_error("shape.safetensors", TLOB_ERR_SHAPE, "'qkv.q.weight'", "shape (2, 1), expected (1, 1)");
    layout_header(h, sizeof h, "norm.bias", "{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,8]}", "");
    write_file("offsets.safetensors", h, zeros, 4 * total);
    expect_error("offsets.safetensors", TLOB_ERR_FORMAT, "'norm.bias'", "data_offsets [0, 8]");
    /* Offsets at the ends of 64 bits: refused without a signed overflow
     * (end - begin, data start + end: UBSan in make check-sanitize). */
    layout_header(h, sizeof h, "norm.bias",
                  "{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[1,-9223372036854775808]}", "");
    write_file("offsets-min.safetensors", h, zeros, 4 * total);
    expect_error("offsets-min.safetensors", TLOB_ERR_FORMAT, "'norm.bias'",
                 "data_offsets [1, -9223372036854775808]");
    layout_header(h, sizeof h, "norm.bias",
                  "{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":"
                  "[9223372036854775803,9223372036854775807]}", "");
    write_file("offsets-max.safetensors", h, zeros, 4 * total);
    expect_error("offsets-max.safetensors", TLOB_ERR_FORMAT, "'norm.bias'",
                 "data_offsets [9223372036854775803, 9223372036854775807]");
    layout_header(h, sizeof h, NULL, NULL, "");
    write_file("short.safetensors", h, zeros, 4 * total - 4);
    expect_error("short.safetensors", TLOB_ERR_FORMAT, "'w0.bias'", "inside the file");
    layout_header(h, sizeof h, "mlp.fc2.bias", "{\"dtype\":\"F32\"}", "");
    write_file("entry.safetensors", h, zeros, 4 * total);
    expect_error("entry.safetensors", TLOB_ERR_FORMAT, "'mlp.fc2.bias'", "lacks");
    write_file("json.safetensors", "{\"norm.weight\": [", zeros, 0);
    expect_error("json.safetensors", TLOB_ERR_FORMAT, NULL, "not JSON");
    write_file("array.safetensors", "[1, 2]", zeros, 0);
    expect_error("array.safetensors", TLOB_ERR_FORMAT, NULL, "not a JSON object");
    FILE *f = fopen(path_of("tiny.safetensors"), "wb");
    fwrite("abc", 1, 3, f);
    fclose(f);
    expect_error("tiny.safetensors", TLOB_ERR_FORMAT, NULL, "shorter than 8 bytes");
    f = fopen(path_of("huge.safetensors"), "wb");
    fwrite("\xff\xff\xff\xff\x00\x00\x00\x00{}", 1, 10, f);
    fclose(f);
    expect_error("huge.safetensors", TLOB_ERR_FORMAT, NULL, "header length");
    expect_error("absent.safetensors", TLOB_ERR_IO, NULL, "cannot open");
    CHECK(tlob_write_safetensors_host("/nonexistent-dir/x.safetensors", 1, 1, 1, zeros) == TLOB_ERR_IO &&
              strstr(tlob_last_error(), "/nonexistent-dir/x.safetensors") != NULL,
          "write to a missing directory names the path: %s", tlob_last_error());

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    return test_summary();
}
