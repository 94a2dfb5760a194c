/* .npy reading and writing: round trips, and rejection of malformed files
 * with an error that names the file. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "npy.h"

static char dir[] = "/tmp/tlob-test-npy-XXXXXX";

static const char *path_of(const char *name) {
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

/* Writes raw bytes: a v1.0 magic, the header text as given, then `body` bytes. */
static void write_raw(const char *name, const char *magic_version, const char *header,
                      const void *body, size_t body_len) {
    FILE *f = fopen(path_of(name), "wb");
    const size_t hlen = strlen(header);
    fwrite(magic_version, 1, 8, f);
    const unsigned char len[2] = {(unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};
    fwrite(len, 1, 2, f);
    fwrite(header, 1, hlen, f);
    if (body_len) fwrite(body, 1, body_len, f);
    fclose(f);
}

static const char V1[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};

static void expect_error(const char *name, tlob_status want, const char *phrase) {
    npy_array a;
    const tlob_status st = npy_read_f32(path_of(name), &a);
    CHECK(st == want, "%s: status %d, want %d (%s)", name, st, want, tlob_last_error());
    CHECK(strstr(tlob_last_error(), name) != NULL, "%s: message names the file: %s", name,
          tlob_last_error());
    CHECK(strstr(tlob_last_error(), phrase) != NULL, "%s: message says '%s': %s", name, phrase,
          tlob_last_error());
    CHECK(a.data == NULL, "%s: no data on failure", name);
}

static void round_trip(int ndim, const size_t *shape) {
    size_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    float *v = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) v[i] = (float)i * 0.5f - 3.25f;
    CHECK(npy_write_f32(path_of("rt.npy"), v, ndim, shape) == TLOB_OK, "write: %s", tlob_last_error());
    npy_array a;
    CHECK(npy_read_f32(path_of("rt.npy"), &a) == TLOB_OK, "read: %s", tlob_last_error());
    CHECK(a.ndim == ndim && a.numel == n, "ndim %d numel %zu", a.ndim, a.numel);
    int same = 1;
    for (int i = 0; i < ndim && i < a.ndim; i++) same &= a.shape[i] == shape[i];
    CHECK(same, "shape preserved");
    CHECK(n == 0 || memcmp(a.data, v, n * sizeof(float)) == 0, "values preserved bit for bit");
    /* the header is padded so that the data starts on a 64-byte boundary, as numpy writes it */
    FILE *f = fopen(path_of("rt.npy"), "rb");
    fseek(f, 0, SEEK_END);
    CHECK((ftell(f) - (long)(n * sizeof(float))) % 64 == 0, "data offset aligned to 64");
    fclose(f);
    npy_free(&a);
    free(v);
}

/* Whether the test directory holds no temporary file of a failed write. */
static int no_temporaries(void) {
    DIR *d = opendir(dir);
    int clean = d != NULL;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp-")) clean = 0;
    if (d) closedir(d);
    return clean;
}

static long file_size(const char *name) {
    struct stat sb;
    return stat(path_of(name), &sb) == 0 ? (long)sb.st_size : -1;
}

/* A write that fails leaves the old file byte for byte. A file-size limit
 * (SIGXFSZ ignored, so write() fails with EFBIG) stands in for a full disk;
 * it holds for root too, where a read-only directory would not. */
static void write_failures(const float *body) {
    const size_t s2[1] = {2};
    CHECK(npy_write_f32(path_of("old.npy"), body, 1, s2) == TLOB_OK, "write old.npy");
    const long old_size = file_size("old.npy");
    static float big[4096];
    const size_t sbig[1] = {4096};
    struct rlimit saved, small;
    getrlimit(RLIMIT_FSIZE, &saved);
    small = saved;
    small.rlim_cur = 1024;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0, "setrlimit");
    const tlob_status st = npy_write_f32(path_of("old.npy"), big, 1, sbig);
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, old_handler);
    CHECK(st == TLOB_ERR_IO && strstr(tlob_last_error(), "old.npy: write failed: File too large"),
          "full disk: %s", tlob_last_error());
    npy_array a;
    CHECK(file_size("old.npy") == old_size && npy_read_f32(path_of("old.npy"), &a) == TLOB_OK &&
              a.numel == 2 && memcmp(a.data, body, 8) == 0,
          "the old file is intact after the failed write");
    npy_free(&a);
    CHECK(no_temporaries(), "no temporary file left");
    /* A successful write replaces it, with the umask's permissions. */
    CHECK(npy_write_f32(path_of("old.npy"), big, 1, sbig) == TLOB_OK, "write: %s", tlob_last_error());
    CHECK(file_size("old.npy") == 128 + 4 * 4096, "replaced: %ld bytes", file_size("old.npy"));
    const mode_t mask = umask(022);
    umask(mask);
    struct stat sb;
    CHECK(stat(path_of("old.npy"), &sb) == 0 && (sb.st_mode & 0777) == (0666 & ~mask),
          "mode %o, want %o", (unsigned)(sb.st_mode & 0777), (unsigned)(0666 & ~mask));
    /* A target that is not a regular file is never replaced. */
    CHECK(mkdir(path_of("target-dir.npy"), 0755) == 0, "mkdir");
    CHECK(npy_write_f32(path_of("target-dir.npy"), body, 1, s2) == TLOB_ERR_IO &&
              strstr(tlob_last_error(), "target-dir.npy: is a directory; not replaced"),
          "directory target: %s", tlob_last_error());
    CHECK(mkfifo(path_of("target-fifo.npy"), 0644) == 0, "mkfifo");
    CHECK(npy_write_f32(path_of("target-fifo.npy"), body, 1, s2) == TLOB_ERR_IO &&
              strstr(tlob_last_error(), "target-fifo.npy: is a FIFO; not replaced"),
          "FIFO target: %s", tlob_last_error());
    CHECK(no_temporaries(), "no temporary file left");
}

int main(void) {
    /* A read or write that blocks (a FIFO) must fail the suite, not hang it. */
    alarm(60);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    const size_t s1[1] = {7}, s2[2] = {3, 5}, s3[3] = {2, 3, 4}, s4[4] = {1, 2, 3, 3}, s0[2] = {0, 4};
    round_trip(1, s1);
    round_trip(2, s2);
    round_trip(3, s3);
    round_trip(4, s4);
    round_trip(2, s0);

    /* a hand-written numpy-style header with different spacing, version 2.0 */
    {
        const char *h = "{'descr':'<f4','fortran_order':False,'shape':(2,)}\n";
        const float body[2] = {1.5f, -2.0f};
        FILE *f = fopen(path_of("v2.npy"), "wb");
        const char magic[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 2, 0};
        const unsigned hl = (unsigned)strlen(h);
        const unsigned char len[4] = {(unsigned char)hl, 0, 0, 0};
        fwrite(magic, 1, 8, f);
        fwrite(len, 1, 4, f);
        fwrite(h, 1, hl, f);
        fwrite(body, sizeof(float), 2, f);
        fclose(f);
        npy_array a;
        CHECK(npy_read_f32(path_of("v2.npy"), &a) == TLOB_OK, "v2 header: %s", tlob_last_error());
        CHECK(a.ndim == 1 && a.shape[0] == 2 && a.data[0] == 1.5f && a.data[1] == -2.0f, "v2 values");
        npy_free(&a);
    }

    const float body[6] = {1, 2, 3, 4, 5, 6};
    write_raw("f8.npy", V1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }\n", body, 24);
    expect_error("f8.npy", TLOB_ERR_FORMAT, "'<f8' is not");
    write_raw("i4.npy", V1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }\n", body, 12);
    expect_error("i4.npy", TLOB_ERR_FORMAT, "'<i4' is not");
    write_raw("be.npy", V1, "{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }\n", body, 12);
    expect_error("be.npy", TLOB_ERR_FORMAT, "float32");
    write_raw("fortran.npy", V1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", body, 24);
    expect_error("fortran.npy", TLOB_ERR_FORMAT, "Fortran");
    write_raw("short.npy", V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\n", body, 12);
    expect_error("short.npy", TLOB_ERR_FORMAT, "needs 4 floats, the file holds 3");
    /* A shape larger than the file (or memory) is refused before any allocation. */
    write_raw("huge.npy", V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }\n", body, 8);
    expect_error("huge.npy", TLOB_ERR_FORMAT, "needs 1099511627776 floats, the file holds 2");
    write_raw("falsehood.npy", V1, "{'descr': '<f4', 'fortran_order': Falsehood, 'shape': (2,), }\n", body, 8);
    expect_error("falsehood.npy", TLOB_ERR_FORMAT, "neither True nor False");
    write_raw("extra.npy", V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1, }\n", body, 8);
    expect_error("extra.npy", TLOB_ERR_FORMAT, "unknown key 'x'");
    CHECK(mkdir(path_of("dir.npy"), 0755) == 0, "mkdir dir.npy");
    expect_error("dir.npy", TLOB_ERR_IO, "is a directory, not a regular file");
    CHECK(mkfifo(path_of("fifo.npy"), 0644) == 0, "mkfifo fifo.npy");
    expect_error("fifo.npy", TLOB_ERR_IO, "is a FIFO, not a regular file");
    {
        npy_array a;
        CHECK(npy_read_f32("/dev/zero", &a) == TLOB_ERR_IO &&
                  strstr(tlob_last_error(), "/dev/zero: is a character device, not a regular file"),
              "/dev/zero refused: %s", tlob_last_error());
    }
    write_raw("long.npy", V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", body, 12);
    expect_error("long.npy", TLOB_ERR_FORMAT, "longer");
    write_raw("noshape.npy", V1, "{'descr': '<f4', 'fortran_order': False, }\n", body, 12);
    expect_error("noshape.npy", TLOB_ERR_FORMAT, "shape");
    write_raw("badshape.npy", V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }\n", body, 8);
    expect_error("badshape.npy", TLOB_ERR_FORMAT, "malformed");
    write_raw("nodict.npy", V1, "'descr': '<f4'\n", body, 8);
    expect_error("nodict.npy", TLOB_ERR_FORMAT, "dict");
    write_raw("after.npy", V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } 'x': 1\n", body, 8);
    expect_error("after.npy", TLOB_ERR_FORMAT, "not a dict");
    write_raw("before.npy", V1, "x{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", body, 8);
    expect_error("before.npy", TLOB_ERR_FORMAT, "not a dict");
    {
        /* A NUL ends the dict early for a C-string parser: the key after it
         * would go unseen. */
        const char h[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\0'x': 1}\n";
        FILE *nf = fopen(path_of("nul.npy"), "wb");
        const unsigned char len[2] = {(unsigned char)(sizeof h - 1), 0};
        fwrite(V1, 1, 8, nf);
        fwrite(len, 1, 2, nf);
        fwrite(h, 1, sizeof h - 1, nf);
        fwrite(body, 1, 8, nf);
        fclose(nf);
        expect_error("nul.npy", TLOB_ERR_FORMAT, "NUL byte at offset 57");
    }
    const char bad_magic[8] = {'\x93', 'N', 'U', 'M', 'P', 'X', 1, 0};
    write_raw("magic.npy", bad_magic, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", body, 4);
    expect_error("magic.npy", TLOB_ERR_FORMAT, "magic");
    const char bad_version[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 9, 0};
    write_raw("version.npy", bad_version, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", body, 4);
    expect_error("version.npy", TLOB_ERR_FORMAT, "version");
    FILE *f = fopen(path_of("tiny.npy"), "wb");
    fwrite("\x93NUM", 1, 4, f);
    fclose(f);
    expect_error("tiny.npy", TLOB_ERR_FORMAT, "magic");
    expect_error("missing.npy", TLOB_ERR_IO, "cannot open");

    /* shape-checked reads name the file and both shapes */
    {
        const size_t want[2] = {3, 4};
        npy_array a;
        const size_t s23[2] = {2, 3};
        CHECK(npy_write_f32(path_of("s.npy"), body, 2, s23) == TLOB_OK, "write");
        CHECK(npy_read_f32_shape(path_of("s.npy"), 2, want, &a) == TLOB_ERR_SHAPE, "shape mismatch");
        CHECK(strstr(tlob_last_error(), "s.npy") && strstr(tlob_last_error(), "(2, 3)") &&
                  strstr(tlob_last_error(), "(3, 4)"),
              "message: %s", tlob_last_error());
        CHECK(npy_read_f32_shape(path_of("s.npy"), 2, s23, &a) == TLOB_OK, "matching shape");
        npy_free(&a);
    }
    /* The expected shape is checked from the header: a body too short for
     * the declared shape is never allocated or read. */
    {
        write_raw("declared.npy", V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000,), }\n", body, 8);
        const size_t want[1] = {2};
        npy_array a;
        CHECK(npy_read_f32_shape(path_of("declared.npy"), 1, want, &a) == TLOB_ERR_SHAPE &&
                  strstr(tlob_last_error(), "shape (1000000000,), expected (2,)"),
              "shape refused from the header: %s", tlob_last_error());
    }
    write_failures(body);
    CHECK(npy_write_f32("/nonexistent-dir/x.npy", body, 1, s1) == TLOB_ERR_IO, "unwritable path");
    CHECK(strstr(tlob_last_error(), "/nonexistent-dir/x.npy") != NULL, "names it: %s", tlob_last_error());

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    return test_summary();
}
