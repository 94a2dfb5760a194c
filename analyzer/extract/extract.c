/* Parsing with libclang: compiler flags per language, the CUDA 13 shim, the
 * precompiled CUDA/cuBLAS headers, compiler errors and what kept a file from
 * being checked as facts.
 * The AST walk itself is extract/walk.c. docs/libclang.md has the measurements
 * behind the choices made here. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "extract/extract.h"
#include "extract/header_copy.h"
#include "extract/include_order.h"
#include "extract/includes.h"
#include "extract/internal.h"
#include "extract/preamble.h"
#include "extract/stand_in.h"
#include "input/directive.h"
#include "input/gitcmd.h"
#include "input/inputs.h"
#include "util/cpu_time.h"
#include "util/hash.h"
#include "util/paths.h"

/* CUDA 13 dropped texture_fetch_functions.h, clang 19's CUDA wrapper still
 * includes it: an empty one found through -idirafter satisfies it. */
#define SHIM_HEADER "texture_fetch_functions.h"

/* nvcc's math_functions.hpp declares min/max __host__ __device__; clang's
 * CUDA headers declare them __device__ only, so host code that nvcc compiles
 * (min(n, max_blocks) in a launcher) fails clang's host pass. Declaring the
 * host side as nvcc does makes clang see the file as nvcc does. nvcc's
 * crt/common_functions.h also includes <string.h> and <time.h> in every
 * host pass: clock() and CLOCKS_PER_SEC need no include under nvcc; and
 * crt/math_functions.h includes <math.h> and <stdlib.h>, whose C++ forms
 * bring std::isfinite/isnan/isinf to the global namespace, where clang's
 * CUDA headers have only their __device__ overloads (host isfinite(x) after
 * <cuda_runtime.h> alone: llm.c's dev/cuda/common.h). nvcc also defines
 * __CUDACC_VER_MAJOR__ and __CUDACC_VER_MINOR__ in every pass, which clang
 * does not (CCCL's cuda/std/__cccl/compiler.h says so and uses CUDA_VERSION
 * instead): host code that tests them in an expression (a CUTLASS example's
 * `if (__CUDACC_VER_MAJOR__ < 11)`) fails clang's host pass. They are
 * defined from CUDA_VERSION (cuda.h, which clang's CUDA wrapper includes
 * first); __NVCC__ is not, since headers take it to mean nvcc's own
 * builtins. nvcc 13 defines __CUDA_ARCH_LIST__ in every pass too, the
 * virtual architectures it compiles for (750 when none is named, its
 * default); host code reads it (`int archs[] = {__CUDA_ARCH_LIST__};` in a
 * launcher that picks a kernel by the newest one). */
#define HOST_MATH_HEADER "gpulint_nvcc_host.h"
static const char host_math_text[] =
    "/* Written by gpulint: nvcc's host min/max (crt/math_functions.hpp), the\n"
    " * C headers crt/common_functions.h and crt/math_functions.h include, and\n"
    " * nvcc's version and architecture macros. */\n"
    "#pragma once\n"
    "#include <string.h>\n"
    "#include <time.h>\n"
    "#include <math.h>\n"
    "#include <stdlib.h>\n"
    "#ifndef __CUDACC_VER_MAJOR__\n"
    "#define __CUDACC_VER_MAJOR__ (CUDA_VERSION / 1000)\n"
    "#define __CUDACC_VER_MINOR__ (CUDA_VERSION % 1000 / 10)\n"
    "#endif\n"
    "#ifndef __CUDA_ARCH_LIST__\n"
    "#define __CUDA_ARCH_LIST__ 750\n"
    "#endif\n"
#define MIN_MAX(r, a, b) \
    "__host__ " r " min(" a ", " b ");\n__host__ " r " max(" a ", " b ");\n"
    MIN_MAX("int", "int", "int")
    MIN_MAX("unsigned int", "unsigned int", "unsigned int")
    MIN_MAX("unsigned int", "int", "unsigned int")
    MIN_MAX("unsigned int", "unsigned int", "int")
    MIN_MAX("long int", "long int", "long int")
    MIN_MAX("unsigned long int", "unsigned long int", "unsigned long int")
    MIN_MAX("unsigned long int", "long int", "unsigned long int")
    MIN_MAX("unsigned long int", "unsigned long int", "long int")
    MIN_MAX("long long int", "long long int", "long long int")
    MIN_MAX("unsigned long long int", "unsigned long long int", "unsigned long long int")
    MIN_MAX("unsigned long long int", "long long int", "unsigned long long int")
    MIN_MAX("unsigned long long int", "unsigned long long int", "long long int")
    MIN_MAX("float", "float", "float")
    MIN_MAX("double", "double", "double")
    MIN_MAX("double", "float", "double")
    MIN_MAX("double", "double", "float");
#undef MIN_MAX

/* What each language's PCH holds: the headers that cost most of a parse
 * (clang's CUDA wrapper pulls in cuda_runtime.h itself; cublas_v2.h alone is
 * about half of a .cu parse). Indexed by source_lang. */
static const char *const pch_prelude[] = {
    [LANG_C] = "#include <cuda_runtime_api.h>\n#include <cublas_v2.h>\n",
    [LANG_CUDA] = "#include <cuda_runtime.h>\n#include <cublas_v2.h>\n",
    [LANG_CXX] = "#include <cuda_runtime.h>\n#include <cublas_v2.h>\n",
};

static struct {
    char *cuda_path;
    char *cuda_include;   /* <cuda>/include */
    char *cuda_path_flag; /* --cuda-path=<cuda> */
    char *cccl_dir;       /* <cuda>/include/cccl (CUDA 13: CUB, Thrust, libcu++), or NULL */
    char *gcc_shim;       /* <shim_dir>/gcc: forwarders to GCC's own headers
                             (write_gcc_forwarders), searched by every parse */
    bool cuda_found;      /* <cuda>/include/cuda_runtime.h exists */
    char *cache_dir;
    char *shim_dir;
    char *host_math;      /* <shim_dir>/gpulint_nvcc_host_math.h */
    char *pch_path[LANG_COUNT];   /* by source_lang; NULL when it could not be built */
    unsigned long long pch_key[LANG_COUNT];
    bool pch_ready[LANG_COUNT];   /* pch_path is built (base_pch_ready) */
    pid_t pch_builder[LANG_COUNT];   /* a process building it beside the first
                                        parses (build_needed_pchs), or 0 */
    source_lang *unit_base;   /* the snapshot's units: the language whose PCH
                                 each parses on, or LANG_COUNT: none */
    char *facts_dir;      /* <cache>/facts, or NULL: no facts cache */
    char *results_dir;    /* <cache>/results (analyzer/results.c), NULL with facts_dir */
    char *identity;       /* what facts depend on besides the file: see facts_identity */
    snapshot_reach *reach;   /* of the snapshot given to facts_global_init, or NULL */
    unsigned char *cublas_of;   /* that snapshot's files, then its context files:
                                   CUBLAS_* bits (names_cublas_itself), or 0 */
    signed char *own_cublas;    /* that snapshot's units: names_cublas_itself,
                                   1 yes, -1 no, 0 not yet asked */
    bool *other_unit;     /* that snapshot's files: some header is analysed in
                             its unit as another program's (kept_give) */
    size_t nother_unit;
    char **set_of;        /* that snapshot's files: the include set each parses
                             with (preamble_choose), or NULL; NULL: none chosen */
    unsigned long long *set_key;   /* the key of each one's set, 0: none */
    hoist_info **hoist_of;   /* each one's set holds includes hoisted past these
                                project headers (extract/hoist.h), or NULL */
    char **unhoisted_of;     /* with hoist_of: the set it had without hoisting */
    size_t *blocks_end_of;   /* each one's set comes after its leading conditional
                                blocks, up to this offset (preamble.h), or 0 */
    size_t *chain_of;     /* each one's set is chained on the set of this file
                             (whose lines begin its own), or SIZE_MAX: on the
                             base PCH, or none (count_include_sets) */
    size_t nset_of;
    bool private_cache;   /* cache_dir is this run's own (the real one is not writable) */
    /* The files pch_key stamps every key with, stat'ed once per run: a
     * key per analysed file (count_include_sets) cost 4 stat calls each,
     * 40,000 in a run over 10,000 files (docs/performance.md). */
    bool stamped;
    struct {
        bool found;
        off_t size;
        time_t mtime;
    } stamp[4];
} g;

static int mkdir_p(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

static char *choose_cache_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char *dir = NULL;
    if (xdg && *xdg)
        dir = xasprintf("%s/gpulint", xdg);
    else if (home && *home)
        dir = xasprintf("%s/.cache/gpulint", home);
    if (dir && mkdir_p(dir) == 0 && access(dir, W_OK) == 0)
        return dir;
    free(dir);
    /* No writable home (CI, a service account): one directory per user
     * under $TMPDIR, kept across runs so the PCH is built once; used only
     * if it is ours and nobody else can write to it. */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    dir = xasprintf("%s/gpulint-cache-%u", tmp, (unsigned)getuid());
    struct stat st;
    if ((mkdir(dir, 0700) == 0 || errno == EEXIST) && lstat(dir, &st) == 0 &&
        S_ISDIR(st.st_mode) && st.st_uid == getuid() && (st.st_mode & 022) == 0)
        return dir;
    free(dir);
    char *tmpl = xasprintf("%s/gpulint-XXXXXX", tmp);
    if (mkdtemp(tmpl))
        return tmpl;
    free(tmpl);
    return NULL;
}

#define MAX_BASE_ARGS 20

/* The flags every parse of a language starts with (docs/libclang.md: zero errors
 * on CUDA 13 with libclang 19). Its PCH is built with exactly these. */
static size_t base_args(source_lang lang, const char **argv)
{
    size_t n = 0;
    if (lang == LANG_CUDA) {
        argv[n++] = "-x";
        argv[n++] = "cuda";
        argv[n++] = "--cuda-host-only";
        argv[n++] = g.cuda_path_flag;
        argv[n++] = "-nocudalib";
        argv[n++] = "-Wno-unknown-cuda-version";
        argv[n++] = "-idirafter";
        argv[n++] = g.shim_dir;
        argv[n++] = "-include";
        argv[n++] = g.host_math;
        if (g.cccl_dir) {
            /* nvcc searches it by itself; clang does not. */
            argv[n++] = "-isystem";
            argv[n++] = g.cccl_dir;
        }
    } else if (lang == LANG_CXX) {
        /* What a host compiler given -I<cuda>/include sees. */
        argv[n++] = "-x";
        argv[n++] = "c++";
        argv[n++] = "-isystem";
        argv[n++] = g.cuda_include;
    } else {
        argv[n++] = "-x";
        argv[n++] = "c";
        /* -isystem, not -I: CUDA's headers are not ours to diagnose. */
        argv[n++] = "-isystem";
        argv[n++] = g.cuda_include;
    }
    /* Last, after the system directories: GCC's own headers that neither
     * clang nor the C library has (write_gcc_forwarders). Always the same
     * path, so no key depends on whether gcc is there; a parse only ever
     * finds what the forwarders hold when it runs. */
    argv[n++] = "-idirafter";
    argv[n++] = g.gcc_shim;
    /* A PCH (the language's, an include set's) instantiates the templates
     * its headers use when it is built, not in every parse that loads it:
     * without this each parse with the CUDA PCH redid the instantiations
     * of cmath, complex and the runtime's templates (clang-19 on
     * cuda-samples' clock.cu with its set's PCH: 0.17 s of CPU, 0.06 s
     * with them in the PCH; docs/performance.md, "Branch s8-speed"). It
     * only changes how a PCH is built; C has no templates. */
    if (lang != LANG_C) {
        argv[n++] = "-fpch-instantiate-templates";
        /* `register` in C++17: an error in clang by default, a warning in
         * GCC, nvcc's host compiler, which compiles it (cuda-samples'
         * smokeParticles/nvMatrix.h under cxx_std_17). */
        argv[n++] = "-Wno-register";
    }
    argv[n++] = "-w";   /* only errors matter; warnings cost time */
    /* Every error is a finding and clang stops at 20 by default, after
     * which the rest of the file is not parsed either. */
    argv[n++] = "-ferror-limit=0";
    return n;
}

/* libclang by its library file, and the CUDA headers: asking libclang its
 * version would load it, which a run that parses nothing never does
 * (extract/libclang_api.h). */
static void take_stamps(void)
{
    static const char *const cuda_stamped[] = { "include/cuda_runtime_api.h",
                                                "include/cublas_api.h",
                                                "include/cuda.h" };
    for (size_t i = 0; i < 4; i++) {
        char *p = i == 0 ? xstrdup(libclang_path())
                         : xasprintf("%s/%s", g.cuda_path, cuda_stamped[i - 1]);
        struct stat st;
        g.stamp[i].found = stat(p, &st) == 0;
        g.stamp[i].size = g.stamp[i].found ? st.st_size : 0;
        g.stamp[i].mtime = g.stamp[i].found ? st.st_mtime : 0;
        free(p);
    }
    g.stamped = true;
}

static unsigned long long fold_stamp(unsigned long long h, size_t i)
{
    if (g.stamp[i].found) {
        h = fnv1a(h, &g.stamp[i].size, sizeof g.stamp[i].size);
        h = fnv1a(h, &g.stamp[i].mtime, sizeof g.stamp[i].mtime);
    }
    return h;
}

static unsigned long long pch_key(const char *prelude, const char **argv, size_t argc)
{
    if (!g.stamped)
        take_stamps();
    unsigned long long h = fold_stamp(FNV1A_SEED, 0);
    for (size_t i = 0; i < argc; i++)
        h = fnv1a(h, argv[i], strlen(argv[i]) + 1);
    h = fnv1a(h, prelude, strlen(prelude) + 1);
    h = fnv1a(h, host_math_text, sizeof host_math_text);
    for (size_t i = 1; i < 4; i++)
        h = fold_stamp(h, i);
    return h;
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

/* Write `text` to `path` through a temporary name and a rename, so
 * concurrent gpulint runs never see half a file. */
static int write_file_atomically(const char *path, const char *text)
{
    char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
    int rc = write_file(tmp, text) == 0 && rename(tmp, path) == 0 ? 0 : -1;
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* Make `path` hold exactly `text`; rewritten only when it differs, so a PCH
 * that depends on it stays valid. */
static int ensure_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = strlen(text);
        char *have = xmalloc(n + 2);
        size_t got = fread(have, 1, n + 1, f);
        fclose(f);
        bool same = got == n && memcmp(have, text, n) == 0;
        free(have);
        if (same)
            return 0;
    }
    return write_file_atomically(path, text);
}

/* PCHs of other keys (an older libclang, CUDA or flag set) are ~10 MB each:
 * remove those of this language not touched for a while. The delay leaves
 * alone a concurrent gpulint that uses another CUDA installation; if it
 * still loses its PCH, its parses fall back to the full parse. */
static void remove_stale_pchs(const char *ext, const char *keep_key)
{
    DIR *dir = opendir(g.cache_dir);
    if (!dir)
        return;
    char *prefix = xasprintf("%s-", ext);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 ||
            strstr(e->d_name, keep_key) != NULL)
            continue;
        char *path = xasprintf("%s/%s", g.cache_dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && time(NULL) - st.st_mtime > 600)
            unlink(path);
        free(path);
    }
    free(prefix);
    closedir(dir);
}

/* CPU seconds of the whole process: libclang builds a PCH on a thread of
 * its own unless told otherwise (extract/contain.c, LIBCLANG_NOTHREADS). */
static double process_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A language's PCH is named at the start of a run (the include sets
 * chained on it carry its path in their keys, count_include_sets) and
 * built only for a language some unit of the snapshot parses with it
 * (build_needed_pchs), or, without a snapshot, when a parse first needs it
 * (base_pch_ready): a cold run built all three before any worker started,
 * the C++ one (0.5 s of CPU here) although this repository has no C++
 * file (docs/performance.md). clang validates a PCH against every input
 * file it was built from, the prelude included, so the prelude stays in
 * the cache next to it (same key) and is never rewritten while the PCH
 * exists. */
static void name_pch(source_lang lang)
{
    const char *argv[MAX_BASE_ARGS];
    size_t argc = base_args(lang, argv);
    unsigned long long key = pch_key(pch_prelude[lang], argv, argc);
    const char *ext = lang == LANG_CUDA ? "cuh" : lang == LANG_CXX ? "hpp" : "h";
    g.pch_path[lang] = xasprintf("%s/%s-%016llx.pch", g.cache_dir, ext, key);
    g.pch_key[lang] = key;
    char *prelude = xasprintf("%s/%s-%016llx.prelude.%s", g.cache_dir, ext, key, ext);
    g.pch_ready[lang] = access(g.pch_path[lang], R_OK) == 0 && access(prelude, R_OK) == 0;
    free(prelude);
}

/* The directory where GCC keeps the headers it ships itself, as `gcc
 * -print-file-name=include` names it, or NULL when gcc is not there or
 * names no directory. */
static char *host_compiler_include(void)
{
    static const char *const argv[] = {"gcc", "-print-file-name=include", NULL};
    byte_buf out = {0};
    char *error = NULL;
    int rc = git_capture(argv, true, &out, &error);
    free(error);
    if (out.data)
        out.data[strcspn(out.data, "\n")] = '\0';
    struct stat st;
    if (rc != 0 || !out.data || out.data[0] != '/' || stat(out.data, &st) != 0 ||
        !S_ISDIR(st.st_mode)) {
        buf_free(&out);
        return NULL;
    }
    return out.data;
}

/* Headers GCC ships in its own include directory that neither clang nor the
 * C library has. nvcc compiles host code with gcc, so a .cu that includes
 * <omp.h> builds; clang without its own OpenMP package finds no such
 * header, and the file was reported not checked (llm.c's dev/cuda/matmul_*.cu).
 * Forwarders to these alone, not GCC's whole directory: that also holds a
 * stdatomic.h of GCC's builtins, which clang's own stdatomic.h reaches by
 * #include_next once the directory is on the path. */
static const char *const gcc_own_headers[] = {"omp.h", "openacc.h", "acc_prof.h",
                                              "quadmath.h", "quadmath_weak.h",
                                              "ISO_Fortran_binding.h"};
#define N_GCC_OWN (sizeof gcc_own_headers / sizeof gcc_own_headers[0])

/* g.gcc_shim with a forwarder for each of gcc_own_headers GCC has (one it
 * lacks is removed, so that a stale one cannot name a missing file). Once
 * per process, before its first parse (base_pch_ready, parse_unit): a run
 * that parses nothing (warm) does not start gcc. */
static void write_gcc_forwarders(void)
{
    static bool written;
    if (written)
        return;
    written = true;
    char *gcc = host_compiler_include();
    if (mkdir_p(g.gcc_shim) == 0)
        for (size_t i = 0; i < N_GCC_OWN; i++) {
            char *fwd = xasprintf("%s/%s", g.gcc_shim, gcc_own_headers[i]);
            char *target = gcc ? xasprintf("%s/%s", gcc, gcc_own_headers[i]) : NULL;
            if (target && access(target, R_OK) == 0) {
                char *text = xasprintf("/* Written by gpulint: GCC's own %s. */\n"
                                       "#include \"%s\"\n",
                                       gcc_own_headers[i], target);
                ensure_file(fwd, text);
                free(text);
            } else {
                unlink(fwd);
            }
            free(target);
            free(fwd);
        }
    free(gcc);
}

/* Whether the language's PCH is there, built now unless a valid one is
 * cached; when it cannot be built, g.pch_path[lang] becomes NULL and the
 * parses of this process go without it. */
static bool base_pch_ready(source_lang lang)
{
    if (!g.pch_path[lang])
        return false;
    if (g.pch_ready[lang])
        return true;
    write_gcc_forwarders();
    const char *argv[MAX_BASE_ARGS];
    size_t argc = base_args(lang, argv);
    const char *ext = lang == LANG_CUDA ? "cuh" : lang == LANG_CXX ? "hpp" : "h";
    unsigned long long key = g.pch_key[lang];
    const char *path = g.pch_path[lang];
    char *prelude = xasprintf("%s/%s-%016llx.prelude.%s", g.cache_dir, ext, key, ext);
    /* One process builds it, a concurrent gpulint (or the run's other
     * worker) waits and uses it: two building at once each rewrote the
     * prelude and renamed their PCH over the other's, and libclang then
     * refused the include sets chained on the first one (their PCH
     * discarded; tests/analyzer/cli.bats, two runs at once). The lock goes
     * before it is let go, as in preamble.c. */
    char *lock_path = NULL;
    int lock = -1;
    bool built = access(path, R_OK) == 0 && access(prelude, R_OK) == 0;
    if (!built) {
        lock_path = xasprintf("%s/%s-%016llx.lock", g.cache_dir, ext, key);
        lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        while (lock >= 0 && flock(lock, LOCK_EX) != 0 && errno == EINTR)
            ;
        built = access(path, R_OK) == 0 && access(prelude, R_OK) == 0;
    }
    if (!built) {
        double cpu_start = process_cpu_seconds();
        char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
        CXIndex index = clang_createIndex(1, 0);
        CXTranslationUnit tu = NULL;
        built = write_file_atomically(prelude, pch_prelude[lang]) == 0 &&
                clang_parseTranslationUnit2(index, prelude, argv, (int)argc, NULL, 0,
                                            CXTranslationUnit_Incomplete |
                                                CXTranslationUnit_ForSerialization,
                                            &tu) == CXError_Success &&
                clang_saveTranslationUnit(tu, tmp, clang_defaultSaveOptions(tu)) ==
                    CXSaveError_None &&
                rename(tmp, path) == 0;
        if (built) {
            char *key_text = xasprintf("%016llx", key);
            remove_stale_pchs(ext, key_text);
            free(key_text);
        } else {
            unlink(tmp);
        }
        if (tu)
            clang_disposeTranslationUnit(tu);
        clang_disposeIndex(index);
        free(tmp);
        if (getenv("GPULINT_TRACE"))
            fprintf(stderr, "gpulint: trace: build %s (process %d, %s, %.3f s CPU)\n", path,
                    (int)getpid(), built ? "built" : "failed", process_cpu_seconds() - cpu_start);
    }
    if (lock >= 0) {
        unlink(lock_path);
        close(lock);
    }
    free(lock_path);
    free(prelude);
    if (!built) {
        free(g.pch_path[lang]);
        g.pch_path[lang] = NULL;
    }
    g.pch_ready[lang] = built;
    return built;
}

/* Everything extraction's output depends on that is not the file or its
 * arguments: gpulint's own code (a new build may extract differently),
 * libclang, each language's flags and the CUDA headers (the PCH keys cover
 * these). The code counts by content, the SHA-256 of the running binary,
 * not by its inode or mtime: a rebuild or reinstall of the same source
 * links the same bytes and keeps every cached fact. NULL when the binary
 * cannot be read: no facts cache then. */
static char *facts_identity(void)
{
    char *exe = NULL;
    size_t exe_len = 0;
    if (inputs_read_file("/proc/self/exe", &exe, &exe_len) != 0)
        return NULL;
    char exe_hash[65];
    sha256_hex(exe, exe_len, exe_hash);
    free(exe);
    unsigned long long keys[LANG_COUNT];
    for (int lang = 0; lang < LANG_COUNT; lang++) {
        const char *argv[MAX_BASE_ARGS];
        size_t argc = base_args((source_lang)lang, argv);
        keys[lang] = pch_key(pch_prelude[lang], argv, argc);
    }
    return xasprintf("exe sha256 %s; keys %016llx %016llx %016llx", exe_hash, keys[LANG_C],
                     keys[LANG_CUDA], keys[LANG_CXX]);
}

/* The CUDA shim headers in <dir>/shim; sets g.shim_dir and g.host_math.
 * false (errno set) when they cannot be written. */
static bool write_shim(const char *dir)
{
    free(g.shim_dir);
    free(g.host_math);
    g.shim_dir = xasprintf("%s/shim", dir);
    g.host_math = xasprintf("%s/" HOST_MATH_HEADER, g.shim_dir);
    char *shim = xasprintf("%s/" SHIM_HEADER, g.shim_dir);
    bool ok = mkdir_p(g.shim_dir) == 0 && ensure_file(shim, "") == 0 &&
              ensure_file(g.host_math, host_math_text) == 0;
    free(shim);
    free(g.gcc_shim);
    g.gcc_shim = xasprintf("%s/gcc", g.shim_dir);
    return ok;
}

static void count_include_sets(const snapshot *snap, const gl_config *cfg);
static void build_needed_pchs(const snapshot *snap, const gl_config *cfg);
static void kept_clear(void);

int facts_global_init(const gl_config *cfg, const snapshot *snap, char **error)
{
    (void)cfg;
    const char *cuda = getenv("CUDA_PATH");
    g.cuda_path = xstrdup(cuda && *cuda ? cuda : "/usr/local/cuda");
    g.cuda_include = xasprintf("%s/include", g.cuda_path);
    g.cuda_path_flag = xasprintf("--cuda-path=%s", g.cuda_path);
    char *runtime = xasprintf("%s/cuda_runtime.h", g.cuda_include);
    g.cuda_found = access(runtime, R_OK) == 0;
    free(runtime);
    char *cccl = xasprintf("%s/include/cccl", g.cuda_path);
    if (access(cccl, R_OK) == 0)
        g.cccl_dir = cccl;
    else
        free(cccl);
    g.cache_dir = choose_cache_dir();
    if (!g.cache_dir) {
        *error = xasprintf("cannot create a cache directory for the CUDA shim: %s",
                           strerror(errno));
        return -1;
    }
    bool cached = write_shim(g.cache_dir);
    if (!cached) {
        /* A cache that cannot be written (a full disk, a read-only home)
         * costs speed only: the shim goes to a directory of this run's own,
         * removed at exit, and nothing is cached. */
        const char *tmp = getenv("TMPDIR");
        char *private_dir = xasprintf("%s/gpulint-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        char *why = xstrdup(strerror(errno));
        if (!mkdtemp(private_dir) || !write_shim(private_dir)) {
            *error = xasprintf("cannot write the CUDA shim headers in %s (%s), nor in %s: %s",
                               g.cache_dir, why, private_dir, strerror(errno));
            free(why);
            free(private_dir);
            return -1;
        }
        fprintf(stderr, "gpulint: note: cannot write its cache in %s (%s); running without "
                        "it, which is slower\n", g.cache_dir, why);
        free(why);
        free(g.cache_dir);
        g.cache_dir = private_dir;
        g.private_cache = true;
        return 0;
    }
    /* GPULINT_NO_PCH: parse everything in full (measurements, debugging). */
    if (!getenv("GPULINT_NO_PCH"))
        for (int lang = 0; lang < LANG_COUNT; lang++)
            name_pch((source_lang)lang);
    /* GPULINT_NO_FACTS_CACHE: extract every file again (measurements). */
    g.identity = facts_identity();
    if (g.identity && !getenv("GPULINT_NO_FACTS_CACHE")) {
        g.facts_dir = xasprintf("%s/facts", g.cache_dir);
        g.results_dir = xasprintf("%s/results", g.cache_dir);
    }
    kept_clear();   /* units of an earlier snapshot */
    if (snap) {
        facts_cache_run_begin();
        g.reach = reach_build(snap, cfg);
        g.cublas_of = xcalloc(snap->nfiles + snap->ncontext + 1, 1);
        g.own_cublas = xcalloc(snap->nfiles + 1, 1);
        g.other_unit = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof *g.other_unit);
        g.nother_unit = snap->nfiles;
        for (size_t i = 0; i < snap->nfiles; i++)
            for (size_t k = 0; k < snap->files[i].nother_contexts; k++)
                g.other_unit[snap->files[i].other_contexts[k]] = true;
        for (size_t i = 0; i < snap->nfiles; i++)
            for (size_t k = 0; k < snap->files[i].nfallbacks; k++)
                g.other_unit[snap->files[i].fallbacks[k]] = true;
        if (!getenv("GPULINT_NO_PCH")) {
            build_needed_pchs(snap, cfg);
            count_include_sets(snap, cfg);
        }
    }
    return 0;
}

void facts_global_cleanup(void)
{
    if (g.private_cache) {
        char *shim = xasprintf("%s/" SHIM_HEADER, g.shim_dir);
        unlink(shim);
        unlink(g.host_math);
        for (size_t i = 0; i < N_GCC_OWN; i++) {
            char *fwd = xasprintf("%s/%s", g.gcc_shim, gcc_own_headers[i]);
            unlink(fwd);
            free(fwd);
        }
        rmdir(g.gcc_shim);
        rmdir(g.shim_dir);
        rmdir(g.cache_dir);
        free(shim);
    }
    free(g.cuda_path);
    free(g.cuda_include);
    free(g.cuda_path_flag);
    free(g.cccl_dir);
    free(g.gcc_shim);
    free(g.cache_dir);
    free(g.shim_dir);
    free(g.host_math);
    for (int lang = 0; lang < LANG_COUNT; lang++)
        free(g.pch_path[lang]);
    free(g.facts_dir);
    free(g.results_dir);
    free(g.identity);
    reach_free(g.reach);
    free(g.cublas_of);
    free(g.own_cublas);
    g.cublas_of = NULL;
    g.own_cublas = NULL;
    kept_clear();
    free(g.other_unit);
    for (size_t i = 0; i < g.nset_of; i++) {
        free(g.set_of[i]);
        if (g.hoist_of && g.hoist_of[i]) {
            hoist_info_free(g.hoist_of[i]);
            free(g.hoist_of[i]);
            free(g.unhoisted_of[i]);
        }
    }
    free(g.hoist_of);
    free(g.unhoisted_of);
    free(g.blocks_end_of);
    free(g.chain_of);
    for (int lang = 0; lang < LANG_COUNT; lang++)
        if (g.pch_builder[lang])
            waitpid(g.pch_builder[lang], NULL, 0);
    free(g.unit_base);
    free(g.set_of);
    free(g.set_key);
    facts_cache_run_end();
    preamble_cleanup();
    memset(&g, 0, sizeof g);
}

static bool mentions(const source_file *src, const char *word)
{
    return memmem(src->text, src->len, word, strlen(word)) != NULL;
}

/* A macro that can change what the system or CUDA headers declare:
 * feature-test macros (_GNU_SOURCE, __STDC_FORMAT_MACROS) and CUDA's own
 * switches (CUDA_API_PER_THREAD_DEFAULT_STREAM, __CUDA_NO_HALF_OPERATORS__). */
static bool configures_headers(const char *name, size_t n)
{
    return (n > 0 && name[0] == '_') || memmem(name, n, "CUDA", 4) || memmem(name, n, "CUBLAS", 6);
}

static bool is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool looks_like_include_guard(const char *name, size_t n)
{
    static const char *const ends[] = { "_H", "_H_", "_HPP", "_CUH", "_INCLUDED" };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        size_t e = strlen(ends[i]);
        if (n > e && memcmp(name + n - e, ends[i], e) == 0)
            return true;
    }
    return false;
}

/* Whether a macro that configures the headers is set by -D/-U, the
 * file's or the config's. */
static bool configures_headers_by_flags(const source_file *src, const gl_config *cfg)
{
    for (size_t i = 0; i < src->nargs; i++) {
        const char *a = src->args[i];
        if (strncmp(a, "-D", 2) == 0 || strncmp(a, "-U", 2) == 0) {
            const char *name = a[2] ? a + 2 : i + 1 < src->nargs ? src->args[i + 1] : "";
            if (configures_headers(name, strcspn(name, "=")))
                return true;
        }
    }
    for (size_t i = 0; cfg && i < cfg->defines.n; i++)
        if (configures_headers(cfg->defines.items[i], strcspn(cfg->defines.items[i], "=")))
            return true;
    return false;
}

/* Whether a macro that configures the headers is set before the file's
 * first #include (in its text, or by -D/-U): the base PCH was preprocessed
 * without it, and `#define _GNU_SOURCE` must still declare memmem. */
static bool configures_headers_first(const source_file *src, const gl_config *cfg)
{
    if (configures_headers_by_flags(src, cfg))
        return true;
    const char *t = src->masked ? src->masked : src->text;
    /* The file's own include guard, whatever it is named (cuda-samples'
     * __REDUCTION_H__, __BODYSYSTEM_H__: a guard, not a feature-test macro,
     * though it starts with '_'). */
    const char *guard = NULL;
    size_t guard_len = include_guard(t, src->len, true, &guard);
    const char *first_include = memmem(t, src->len, "#include", 8);
    size_t limit = first_include ? (size_t)(first_include - t) : src->len;
    static const char *const directives[] = { "#define", "#undef" };
    for (size_t d = 0; d < 2; d++) {
        size_t dl = strlen(directives[d]);
        for (const char *p = t; (p = memmem(p, limit - (size_t)(p - t), directives[d], dl)) != NULL;
             p += dl) {
            const char *name = p + dl;
            while ((size_t)(name - t) < limit && (*name == ' ' || *name == '\t'))
                name++;
            size_t n = 0;
            while ((size_t)(name - t) + n < limit && is_ident_char(name[n]))
                n++;
            bool is_guard = n == guard_len && memcmp(name, guard, n) == 0;
            if (configures_headers(name, n) && !is_guard && !looks_like_include_guard(name, n))
                return true;
        }
    }
    return false;
}

static bool is_stand_in(const source_file *f, void *ctx)
{
    (void)ctx;
    return stands_in_for_toolkit(f, g.cuda_include);
}

/* include_name_fn of includes_cublas: whether a name an #include opens is
 * one of the toolkit's cuBLAS headers, by its last component. */
static void note_cublas_header(const char *name, size_t len, bool quoted, void *ctx)
{
    static const char *const headers[] = {"cublas.h", "cublas_v2.h", "cublas_api.h",
                                          "cublasLt.h", "cublasXt.h"};
    (void)quoted;
    const char *base = name;
    for (const char *p = name; p < name + len; p++)
        if (*p == '/')
            base = p + 1;
    size_t n = (size_t)(name + len - base);
    for (size_t h = 0; h < sizeof headers / sizeof *headers; h++)
        if (n == strlen(headers[h]) && memcmp(base, headers[h], n) == 0)
            *(bool *)ctx = true;
}

/* Whether f has an #include of one of the toolkit's cuBLAS headers, the
 * operand read as reach reads it (include_operand_names, macros expanded):
 * a project's own "cublasWrapper.h" (TensorRT's) is not one. */
static bool includes_cublas(const source_file *f, const macro_names *macros)
{
    bool found = false;
    text_line line;
    text_lines_begin(&line, f->masked, f->len);
    while (!found && text_lines_next(&line)) {
        const char *op = line.directive ? operand_after(line.directive, line.end, "include") : NULL;
        if (op)
            include_operand_names(macros, NULL, f->text + (op - f->masked),
                                  f->text + (line.end - f->masked), note_cublas_header, &found);
    }
    return found;
}

/* The start of the word that ends just before p (blanks skipped), or NULL
 * when none does; *len its length. */
static const char *word_before(const char *begin, const char *p, size_t *len)
{
    while (p > begin && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' || p[-1] == '\r'))
        p--;
    const char *end = p;
    while (p > begin && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
        p--;
    *len = (size_t)(end - p);
    return *len ? p : NULL;
}

/* Whether f's code (comments and literals aside) declares a name of
 * cuBLAS's own: `enum`/`struct`/`class`/`union cublas...`, `using
 * cublas... =`, or a `typedef` ending in `cublas...;`. Uses do not count:
 * cuda-samples' helper_cuda.h names cublasStatus_t in a branch taken only
 * after cuBLAS's own header. */
static bool declares_cublas_name(const source_file *f)
{
    const char *m = f->masked, *end = m + f->len;
    for (const char *p = m; (p = memmem(p, (size_t)(end - p), "cublas", 6)) != NULL; p += 6) {
        if (p > m && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        const char *after = p;
        while (after < end && (isalnum((unsigned char)*after) || *after == '_'))
            after++;
        size_t n;
        const char *w = word_before(m, p, &n);
        if (w && (word_is(w, w + n, "enum") || word_is(w, w + n, "struct") ||
                  word_is(w, w + n, "class") || word_is(w, w + n, "union")))
            return true;
        const char *q = after;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (w && word_is(w, w + n, "using") && q < end && *q == '=')
            return true;
        if (q < end && *q == ';') {
            const char *stmt = p;
            while (stmt > m && stmt[-1] != ';' && stmt[-1] != '{' && stmt[-1] != '}')
                stmt--;
            const char *t = memmem(stmt, (size_t)(p - stmt), "typedef", 7);
            if (t && (t == m || !(isalnum((unsigned char)t[-1]) || t[-1] == '_')))
                return true;
        }
    }
    return false;
}

enum { CUBLAS_KNOWN = 1, CUBLAS_DECLARES = 2, CUBLAS_INCLUDES = 4 };

/* declares_cublas_name and includes_cublas of the file at reach index i,
 * read once a run: a header of cuda-samples' Common/ is in hundreds of
 * units. */
static unsigned cublas_facts(const snapshot *snap, size_t i, const snapshot_reach *reach)
{
    const macro_names *macros = reach ? reach_macros(reach) : NULL;
    const source_file *f = i < snap->nfiles ? &snap->files[i] : &snap->context[i - snap->nfiles];
    if (!g.cublas_of)
        return (declares_cublas_name(f) ? CUBLAS_DECLARES : 0) |
               (includes_cublas(f, macros) ? CUBLAS_INCLUDES : 0);
    if (!g.cublas_of[i])
        g.cublas_of[i] = (unsigned char)(CUBLAS_KNOWN |
                                         (declares_cublas_name(f) ? CUBLAS_DECLARES : 0) |
                                         (includes_cublas(f, macros) ? CUBLAS_INCLUDES : 0));
    return g.cublas_of[i];
}

/* Whether the unit, or a file it may include, declares a name of cuBLAS's
 * own while none has an #include of cuBLAS's headers: it declares them in
 * place of the library's (NVIDIA/TensorRT's plugins, in a namespace they
 * then use), and the PCH's cublas_v2.h would clash with them (115 false
 * parse errors there, docs/realcode.md). */
static bool names_cublas_itself(const snapshot *snap, size_t unit, const snapshot_reach *reach)
{
    if (g.own_cublas && g.own_cublas[unit])
        return g.own_cublas[unit] > 0;
    size_t *files = NULL;
    size_t n = reach ? reach_files(reach, unit, &files) : 0;
    unsigned facts = cublas_facts(snap, unit, reach);
    for (size_t k = 0; k < n && !(facts & CUBLAS_INCLUDES); k++)
        facts |= cublas_facts(snap, files[k], reach);
    free(files);
    bool own = (facts & CUBLAS_DECLARES) && !(facts & CUBLAS_INCLUDES);
    if (g.own_cublas)
        g.own_cublas[unit] = own ? 1 : -1;
    return own;
}

/* The PCH declares cublas_v2.h's API; the legacy cublas.h refuses to be
 * included after it, so such files parse without the PCH, as do files that
 * configure the headers before including them. A C file that names neither
 * CUDA nor cuBLAS parses faster without it (a plain .c takes less than
 * loading the PCH). A C or C++ unit that reaches a driver-API stand-in
 * (extract/stand_in.h: a file that takes a toolkit header's include guard
 * and declares its API itself, as cuda-samples' cuda_drvapi_dynlink_cuda.h
 * does for cuda.h, defining CUuuid_st as the runtime's driver_types.h
 * does) parses as its build compiles it, without the runtime's
 * declarations. One that only misses the toolkit header it would reach
 * (cuda-samples' NPP programs on a machine without NPP: npp.h brings the
 * runtime) keeps the PCH, and with it the runtime calls it makes. A CUDA
 * unit has the runtime whatever it includes, as under nvcc; a unit that
 * declares cuBLAS's names itself (names_cublas_itself) has no PCH. */
static bool can_use_pch(const snapshot *snap, size_t unit, const gl_config *cfg,
                        const snapshot_reach *reach)
{
    const source_file *src = &snap->files[unit];
    if (!g.pch_path[src->lang] || mentions(src, "cublas.h") ||
        configures_headers_first(src, cfg) || names_cublas_itself(snap, unit, reach))
        return false;
    if (src->lang == LANG_CUDA)
        return true;
    return (mentions(src, "cuda") || mentions(src, "cublas")) &&
           !reach_any_file(reach, unit, is_stand_in, NULL);
}

/* Build the PCH of each language that some unit of the snapshot would
 * parse with. C's (0.1 s of CPU) before the workers start; CUDA's and
 * C++'s (1.0-1.2 s and 0.5 s here) each in a process of its own, beside
 * the first parses: the units that need one are handed out after it
 * (facts_unit_waits), so that a cold run over this repository no longer
 * starts with one core idle for a second (docs/performance.md, "Branch
 * s9-speed"). The workers read what it built from the cache (base_pch_ready
 * checks again under the lock). */
static void build_needed_pchs(const snapshot *snap, const gl_config *cfg)
{
    bool needed[LANG_COUNT] = {false};
    g.unit_base = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof *g.unit_base);
    for (size_t i = 0; i < snap->nfiles; i++) {
        source_lang lang = snap->files[i].lang;
        g.unit_base[i] = LANG_COUNT;
        if (facts_unit_of(snap, i) == i && can_use_pch(snap, i, cfg, g.reach)) {
            needed[lang] = true;
            g.unit_base[i] = lang;
        }
    }
    fflush(NULL);   /* nothing buffered is written twice */
    for (int lang = 0; lang < LANG_COUNT; lang++) {
        if (!needed[lang] || lang == LANG_C || g.pch_ready[lang])
            continue;
        pid_t pid = fork();
        if (pid == 0)
            _exit(base_pch_ready((source_lang)lang) ? 0 : 1);
        if (pid > 0)
            g.pch_builder[lang] = pid;
    }
    for (int lang = 0; lang < LANG_COUNT; lang++)
        if (needed[lang] && !g.pch_builder[lang])
            base_pch_ready((source_lang)lang);
}

/* Whether the process building a language's PCH is still at it; when it
 * has ended, what it built (or failed to) is this process's to use. */
static bool base_pch_pending(source_lang lang)
{
    if (!g.pch_builder[lang])
        return false;
    int status;
    pid_t done = waitpid(g.pch_builder[lang], &status, WNOHANG);
    if (done == 0)
        return true;
    g.pch_builder[lang] = 0;
    if (done < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(g.pch_path[lang]);   /* parses go without it, as after a failed build here */
        g.pch_path[lang] = NULL;
    } else {
        g.pch_ready[lang] = true;
    }
    return false;
}

bool facts_unit_waits(size_t unit)
{
    return g.unit_base && unit < g.nset_of && g.unit_base[unit] < LANG_COUNT &&
           base_pch_pending(g.unit_base[unit]);
}

/* Whether a file may parse with a PCH of its own leading system headers
 * (an include set): on top of the base PCH when it uses that, else on its
 * own (this repository's C files that include <clang-c/Index.h>: 50-70 ms
 * a parse without, 25 ms with). A file that configures the headers in its
 * first lines (`#define _GNU_SOURCE`) does not use the base PCH, and its
 * set is built with those lines first (preamble_leading_defines): 52 of
 * the 56 parses of this repository that used no PCH. Not for a file
 * configured by -D/-U (the set is built with the config's flags, not the
 * file's), nor one that names cublas.h (can_use_pch). */
static bool can_use_set(const source_file *src, const gl_config *cfg)
{
    return !mentions(src, "cublas.h") && !configures_headers_by_flags(src, cfg);
}

typedef struct {
    const char **argv;
    size_t n, cap;
    char **owned;      /* strings built here, freed with the list */
    size_t nowned;
} arg_list;

static void arg_add(arg_list *a, const char *s)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 32;
        a->argv = xrealloc(a->argv, a->cap * sizeof *a->argv);
    }
    a->argv[a->n++] = s;
}

static void arg_add_owned(arg_list *a, char *s)
{
    *XPUSH(a->owned, a->nowned) = s;
    arg_add(a, s);
}

static void arg_list_free(arg_list *a)
{
    for (size_t i = 0; i < a->nowned; i++)
        free(a->owned[i]);
    free(a->owned);
    free(a->argv);
}

/* A file's include set (extract/preamble.h): the system headers the file
 * includes first, after the base PCH's prelude when the file uses the base
 * PCH, and after the #define lines the file starts with (a .cu file's
 * `#define HELPERGL_EXTERN_GL_FUNC_IMPLEMENTATION` comes after the base
 * PCH's headers in the file's own parse too), built with the base flags
 * and the config's include dirs and defines (which every parse has too). */
typedef struct include_set {
    char *prelude;      /* NULL: the file has no include set of its own */
    arg_list args;
    unsigned long long key;
    const char *leading;        /* the include lines it holds (g.set_of's) */
    struct include_set *parent; /* the set it is chained on, or NULL */
} include_set;

static void include_set_free(include_set *set);

/* parent (owned by the set made, or freed here; NULL: none) is the set of
 * another file whose lines begin `leading`: this set is built on top of
 * its PCH and holds only the lines after them, so that the lines both
 * hold are parsed once for both sets, not once per set (cuda-samples'
 * sets of <cooperative_groups.h> and of <helper_cuda.h> with one header
 * more, docs/performance.md "Branch s13-speed"). The headers come in the
 * same order as in the set's own PCH: the parent's lines are its first
 * lines (g.chain_of), and the parent holds the base PCH's prelude and the
 * file's #define lines that this set's would start with. */
static void include_set_of(const source_file *src, const gl_config *cfg, const char *leading,
                           bool on_base, include_set *parent, include_set *set)
{
    *set = (include_set){0};
    char *parent_pch = parent && leading ? preamble_pch_path(parent->key) : NULL;
    if (!parent_pch && parent) {
        include_set_free(parent);
        free(parent);
        parent = NULL;
    }
    if (!leading)
        return;
    set->leading = leading;
    if (parent) {
        set->prelude = xstrdup(leading + strlen(parent->leading));
        set->parent = parent;
    } else {
        char *defines = preamble_leading_defines(src);
        set->prelude = xasprintf("%s%s%s", on_base ? pch_prelude[src->lang] : "", defines,
                                 leading);
        free(defines);
    }
    const char *base[MAX_BASE_ARGS];
    size_t nb = base_args(src->lang, base);
    for (size_t i = 0; i < nb; i++)
        arg_add(&set->args, base[i]);
    /* Built on top of the language's PCH (a chained PCH: it holds only what
     * the set adds, and a parse with it loads both): the set's build no
     * longer parses the CUDA runtime and cuBLAS again (about 0.9 s of a
     * 2.7 s build on llm.c, docs/performance.md) and its file is half the
     * size. The base PCH's path carries its key, so it is in this key; a
     * parent's path carries the parent's key, which carries the base's. */
    if (parent_pch) {
        arg_add(&set->args, "-include-pch");
        arg_add_owned(&set->args, parent_pch);
    } else if (on_base) {
        arg_add(&set->args, "-include-pch");
        arg_add(&set->args, g.pch_path[src->lang]);
    }
    for (size_t i = 0; cfg && i < cfg->include_dirs.n; i++)
        arg_add_owned(&set->args, xasprintf("-I%s", cfg->include_dirs.items[i]));
    for (size_t i = 0; cfg && i < cfg->defines.n; i++)
        arg_add_owned(&set->args, xasprintf("-D%s", cfg->defines.items[i]));
    set->key = pch_key(set->prelude, set->args.argv, set->args.n);
}

static void include_set_free(include_set *set)
{
    if (set->parent) {
        include_set_free(set->parent);
        free(set->parent);
    }
    free(set->prelude);
    arg_list_free(&set->args);
}

/* The include set of snap->files[i] (g.set_of), chained on the set of
 * g.chain_of[i] when it has one; on_base: whether the file parses on its
 * language's PCH (can_use_pch), as the files of the sets it is chained on
 * do (the same group in count_include_sets). */
static void unit_include_set(const snapshot *snap, size_t i, const gl_config *cfg, bool on_base,
                             include_set *set)
{
    include_set *parent = NULL;
    if (g.chain_of && g.set_of[i] && g.chain_of[i] != SIZE_MAX) {
        parent = xmalloc(sizeof *parent);
        unit_include_set(snap, g.chain_of[i], cfg, on_base, parent);
    }
    include_set_of(&snap->files[i], cfg, g.set_of[i], on_base, parent, set);
}

/* The PCH of a set, its parents' built first (preamble_pch); NULL when it
 * or one of them cannot be had: a parent that does not build would fail
 * this set's build too, which reads its headers first. */
static const char *include_set_pch(const include_set *set)
{
    if (set->parent && !include_set_pch(set->parent))
        return NULL;
    return preamble_pch(set->key, set->prelude, set->args.argv, set->args.n);
}

/* Each file's set is chained on the longest other set of its group whose
 * lines are the first lines of its own (both sorted, each line once:
 * preamble_leading_includes), so that their common headers are parsed once
 * (g.chain_of). Only sets on a base PCH: a C set off it may hoist
 * (extract/hoist.h), and its names list is written by its own build.
 * Compared among the distinct sets, each once. */
static void chain_include_sets(size_t n, const int *group, const bool *on_base)
{
    g.chain_of = xcalloc(n ? n : 1, sizeof *g.chain_of);
    size_t *distinct = NULL, ndistinct = 0;
    for (size_t i = 0; i < n; i++) {
        g.chain_of[i] = SIZE_MAX;
        if (!g.set_of[i] || !on_base[i])
            continue;
        size_t d = 0;
        while (d < ndistinct && !(group[distinct[d]] == group[i] &&
                                  strcmp(g.set_of[distinct[d]], g.set_of[i]) == 0))
            d++;
        if (d == ndistinct)
            *XPUSH(distinct, ndistinct) = i;
    }
    for (size_t i = 0; i < n; i++) {
        if (!g.set_of[i] || !on_base[i])
            continue;
        size_t len = strlen(g.set_of[i]), best_len = 0;
        for (size_t d = 0; d < ndistinct; d++) {
            size_t j = distinct[d], l = strlen(g.set_of[j]);
            if (group[j] == group[i] && l < len && l > best_len &&
                strncmp(g.set_of[j], g.set_of[i], l) == 0) {
                g.chain_of[i] = j;
                best_len = l;
            }
        }
    }
    free(distinct);
}

/* The lines of `leading` (preamble_leading_includes) that the language's
 * base PCH does not hold already. */
static char *beyond_base(const char *leading, source_lang lang)
{
    byte_buf out = {0};
    buf_append(&out, "", 0);
    for (const char *line = leading; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        char *text = xstrndup(line, len);
        if (!strstr(pch_prelude[lang], text))
            buf_append(&out, text, len);
        free(text);
        line += len;
    }
    return out.data;
}

/* How much a header of an include set costs a parse, roughly: CCCL's
 * (Thrust, CUB, libcu++) most, since each reaches the library's core
 * (clang-19: <thrust/device_vector.h> alone 4.5 s of CPU, all seven of
 * radixSortThrust.cu's Thrust headers 4.6 s, so that two files naming
 * different Thrust headers still have most of their cost in common;
 * docs/performance.md, "Branch s8-speed"); then the rest of the CUDA
 * toolkit's (cooperative_groups/reduce.h alone is 1.4 s of CPU in each of
 * llm.c's files that include it, a C library header a few ms), then the
 * C++ library's (no extension). */
static unsigned header_weight(const char *line)
{
    const char *open = strchr(line, '<'), *close = open ? strchr(open, '>') : NULL;
    if (!close)
        return 1;
    char *name = xstrndup(open + 1, (size_t)(close - open - 1));
    char *in_cuda = xasprintf("%s/%s", g.cuda_include, name);
    char *in_cccl = g.cccl_dir ? xasprintf("%s/%s", g.cccl_dir, name) : NULL;
    unsigned w = in_cccl && access(in_cccl, F_OK) == 0 ? 64
                 : access(in_cuda, F_OK) == 0           ? 16
                 : !strchr(name, '.')                   ? 4
                                                        : 1;
    free(name);
    free(in_cuda);
    free(in_cccl);
    return w;
}

/* Which include set each translation unit parses with (preamble_choose):
 * only sets shared by two units or more get a PCH. A header analysed in
 * its includer's unit is not parsed on its own, so it does not count. */
static void count_include_sets(const snapshot *snap, const gl_config *cfg)
{
    preamble_init(g.cache_dir);
    size_t n = snap->nfiles;
    char **leading = xcalloc(n ? n : 1, sizeof *leading);
    int *group = xcalloc(n ? n : 1, sizeof *group);
    char **prefixes = NULL;   /* the distinct leading #define lines */
    size_t nprefixes = 0;
    g.hoist_of = xcalloc(n ? n : 1, sizeof *g.hoist_of);
    g.unhoisted_of = xcalloc(n ? n : 1, sizeof *g.unhoisted_of);
    g.blocks_end_of = xcalloc(n ? n : 1, sizeof *g.blocks_end_of);
    for (size_t i = 0; i < n; i++) {
        const source_file *src = &snap->files[i];
        if (facts_unit_of(snap, i) != i || !can_use_set(src, cfg))
            continue;
        bool on_base = can_use_pch(snap, i, cfg, g.reach);
        char *all = preamble_leading_includes(src, g.reach, true, &g.blocks_end_of[i]);
        leading[i] = on_base ? beyond_base(all, src->lang) : xstrdup(all);
        /* A C file on no base PCH: its set may go on past its project
         * headers (extract/hoist.h), the analyzer's files that start with
         * their own header. */
        if (!on_base && src->lang == LANG_C) {
            hoist_info hoist = {0};
            char *hoisted = preamble_hoisted_includes(src, g.reach, &hoist, &g.blocks_end_of[i]);
            if (hoist.crossed && strcmp(hoisted, all) != 0) {
                free(leading[i]);
                leading[i] = hoisted;
                g.hoist_of[i] = xmalloc(sizeof hoist);
                *g.hoist_of[i] = hoist;
                g.unhoisted_of[i] = xstrdup(all);
            } else {
                free(hoisted);
                hoist_info_free(&hoist);
            }
        }
        free(all);
        /* A set's flags and base, and the lines it starts with. */
        size_t prefix = 0;
        char *defines = preamble_leading_defines(src);
        while (prefix < nprefixes && strcmp(prefixes[prefix], defines) != 0)
            prefix++;
        if (prefix == nprefixes) {
            *XPUSH(prefixes, nprefixes) = defines;
        } else {
            free(defines);
        }
        group[i] = (int)(((size_t)prefix * LANG_COUNT + src->lang) * 2) + on_base;
    }
    for (size_t k = 0; k < nprefixes; k++)
        free(prefixes[k]);
    free(prefixes);
    g.set_of = preamble_choose(leading, group, n, header_weight);
    g.set_key = xcalloc(n ? n : 1, sizeof *g.set_key);
    g.nset_of = n;
    bool *on_base = xcalloc(n ? n : 1, sizeof *on_base);
    for (size_t i = 0; i < n; i++)
        on_base[i] = leading[i] && (group[i] & 1);
    chain_include_sets(n, group, on_base);
    for (size_t i = 0; i < n; i++) {
        free(leading[i]);
        include_set set;
        unit_include_set(snap, i, cfg, can_use_pch(snap, i, cfg, g.reach), &set);
        if (set.prelude) {
            preamble_count(set.key, g.hoist_of[i] != NULL);
            g.set_key[i] = set.key;
        }
        include_set_free(&set);
    }
    free(leading);
    free(group);
    free(on_base);
}

static void build_args(arg_list *a, const snapshot *snap, const source_file *src,
                       const gl_config *cfg, const char *pch)
{
    const char *base[MAX_BASE_ARGS];
    size_t nb = base_args(src->lang, base);
    for (size_t i = 0; i < nb; i++)
        arg_add(a, base[i]);
    if (pch) {
        arg_add(a, "-include-pch");
        arg_add(a, pch);
    }
    /* The file's own directory; none for a header parsed as its own unit.
     * No build compiles a header: its includers' builds search its
     * directory only for its own "..." includes, which clang does for the
     * main file unasked. As -I it answered every <...> and "..." of the
     * parse: warp's cuBQL/builder/omp.h, parsed alone, was its own detail
     * headers' <omp.h>, read again from there (clang ignores #pragma once
     * in the main file), 39 false errors in them, and cuBQL/builder/cuda.h
     * was the "cuda.h" of clang's CUDA wrapper (docs/realcode.md, "Branch
     * s16-warp"). */
    const char *slash = strrchr(src->abs_path, '/');
    if (slash && !src->is_header)
        arg_add_owned(a, xasprintf("-I%.*s", (int)(slash - src->abs_path), src->abs_path));
    /* The compilation database's flags for the file come before the
     * config's, so that its own -I find same-named headers first, as its
     * build does. */
    for (size_t i = 0; i < src->nargs; i++)
        arg_add(a, src->args[i]);
    /* A header that no build compiles, parsed on its own (its unit leaves
     * it out, in a branch that build does not take): its unit's database
     * flags, the search path its #includes were written for, not none
     * (xgboost's src/collective/coll.cuh, whose every includer is under
     * XGBOOST_USE_NCCL, found no "xgboost/..." header). The facts cache key
     * covers them (extract/cache.c). */
    if (src->is_header && src->nargs == 0 && src->context >= 0) {
        const source_file *unit = &snap->files[src->context];
        for (size_t i = 0; i < unit->nargs; i++)
            arg_add(a, unit->args[i]);
    }
    if (snap->root)
        arg_add_owned(a, xasprintf("-I%s", snap->root));
    if (cfg) {
        for (size_t i = 0; i < cfg->include_dirs.n; i++)
            arg_add_owned(a, xasprintf("-I%s", cfg->include_dirs.items[i]));
        for (size_t i = 0; i < cfg->defines.n; i++)
            arg_add_owned(a, xasprintf("-D%s", cfg->defines.items[i]));
    }
}

static bool in_ranges(const offset_range *ranges, size_t n, unsigned offset)
{
    for (size_t i = 0; i < n; i++)
        if (offset >= ranges[i].start && offset <= ranges[i].end)
            return true;
    return false;
}

/* Whether an error at offset lies in device code that the host-only parse
 * cannot judge (walk_ctx.device_bodies), not in a parameter of it whose
 * type clang could not read. */
static bool in_device_body(const walk_ctx *ctx, unsigned offset)
{
    return in_ranges(ctx->device_bodies, ctx->n_device_bodies, offset) &&
           !in_ranges(ctx->invalid_device_params, ctx->n_invalid_device_params, offset);
}

static void record_not_checked(walk_ctx *ctx, fact_unchecked_cause cause, char *detail,
                               char *via, unsigned line, unsigned col)
{
    fact_not_checked *u = XPUSH(ctx->facts->not_checked, ctx->facts->n_not_checked);
    u->cause = cause;
    u->detail = detail;
    u->via = via;
    u->loc.line = line;
    u->loc.col = col;
}

/* clang's "'name.h' file not found" (also "... with <angled> include; use
 * "quotes" instead"): the header as written, or NULL for another message. */
static char *missing_header(const char *message)
{
    const char *open = message[0] == '\'' ? message + 1 : NULL;
    const char *close = open ? strchr(open, '\'') : NULL;
    if (!close || strncmp(close, "' file not found", 16) != 0)
        return NULL;
    return xstrndup(open, (size_t)(close - open));
}

/* CXTranslationUnit_KeepGoing turns clang's fatal errors into plain errors,
 * so they are told by their text: those after which clang skipped input
 * (an #include not found, a file it could not read, a nesting bound hit). */
static bool is_fatal_text(const char *message)
{
    char *header = missing_header(message);
    free(header);
    if (header)
        return true;
    static const char *const starts[] = {
        "#include nested depth",          /* the bound on #include nesting */
        "bracket nesting level exceeded", /* the parser's nesting bound */
        "cannot open file",
        "error reading",
        "could not build module",
        "module '",                       /* "module 'm' not found" */
    };
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
        if (strncmp(message, starts[i], strlen(starts[i])) == 0)
            return true;
    return false;
}

typedef struct {
    CXFile target;           /* the file whose #include failed */
    CXFile main_file;
    unsigned line, col;      /* the main file's #include that leads to it */
    bool found;
} include_site;

static void find_include_site(CXFile included, CXSourceLocation *stack, unsigned depth,
                              CXClientData data)
{
    include_site *site = data;
    if (site->found || depth == 0 || !clang_File_isEqual(included, site->target))
        return;
    /* stack[depth - 1] is the outermost #include. The analysed file's own
     * #include on the way is the line that leads to it: outermost when the
     * file is the unit's main file; further in when it is a header analysed
     * in its includer's unit. A chain that starts in what the command line
     * includes (clang's CUDA wrapper, -include) and never passes through
     * the file leaves the finding at its first line, not at a line of
     * another file (line 897 of a 25-line header, once). */
    for (unsigned k = depth; k-- > 0;) {
        CXFile file;
        unsigned line, col, offset;
        clang_getExpansionLocation(stack[k], &file, &line, &col, &offset);
        if (file && clang_File_isEqual(file, site->main_file)) {
            site->line = line;
            site->col = col;
            site->found = true;
            return;
        }
    }
}

/* A fatal error (an #include that cannot be found, mostly) anywhere in the
 * translation unit: clang skipped what it could not read, so the file was
 * not checked in full. One fact per fatal error, at the main file's line
 * that leads to it. In the walk of a header, one after the header was read
 * in full is the unit's own (its file reports it), not the header's, in
 * its own unit as in another program's: ggml's CANN and arch/ units, whose
 * SDK headers are absent, made 301 findings at 12 shared headers
 * (docs/realcode.md, branches s9-real and s10-real). */
static void record_fatal(walk_ctx *ctx, char *message, CXFile file, unsigned line,
                         unsigned col, unsigned offset)
{
    if (ctx->header_in_unit && file &&
        include_order_after(ctx->tu, ctx->main_file, file, offset)) {
        free(message);
        return;
    }
    char *header = missing_header(message);
    char *via = NULL;
    if (!file || !clang_File_isEqual(file, ctx->main_file)) {
        include_site site = {.target = file, .main_file = ctx->main_file};
        if (file) {
            clang_getInclusions(ctx->tu, find_include_site, &site);
            char *name = cx_take(clang_getFileName(file));
            via = xasprintf("%s:%u", name, line);
            free(name);
        }
        line = site.found ? site.line : 1;
        col = site.found ? site.col : 1;
    }
    /* Before the header, not in it: another unit that includes the header
     * may read it in full (extract_one's fallbacks). */
    if (ctx->header_in_unit && !(file && include_order_inside(ctx->tu, ctx->main_file, file)))
        *XPUSH(ctx->failed_before, ctx->n_failed_before) = ctx->facts->n_not_checked;
    if (header) {
        free(message);
        record_not_checked(ctx, UNCHECKED_MISSING_INCLUDE, header, via, line, col);
    } else {
        record_not_checked(ctx, UNCHECKED_FATAL, message, via, line, col);
    }
}

/* Compiler errors in the main file become facts (rules/parse_error.c
 * reports them), except inside device code (walk_ctx); fatal errors anywhere
 * become not-checked facts (rules/not_checked.c). Other errors inside
 * included headers are the header's own findings when it is part of the
 * snapshot. */
/* Errors clang gives C++ and CUDA code that GCC, nvcc's host compiler,
 * compiles, and that no clang flag turns off alone: not errors of the file
 * (docs/libclang.md). */
static bool gcc_accepts(source_lang lang, const char *message)
{
    /* `T a[n] = {0};`: g++ initialises a variable-length array; clang 19
     * refuses any initialiser, `= {}` too. C (GCC too) refuses it
     * (cuda-samples' cudaNvSciBufMultiplanar/imageKernels.cu). */
    if (lang != LANG_C && strcmp(message, "variable-sized object may not be initialized") == 0)
        return true;
    /* A variable narrowed in a braced list (`at::empty({n}, opts)` with a
     * size_t n, NVIDIA/apex's group norm): g++ warns, clang refuses. A
     * constant narrowed (`char c[] = {300}`) g++ refuses too; clang's flag
     * for the one is the other's, so the message tells them apart. In a
     * CUDA file nvcc's own front end refuses both. */
    return lang == LANG_CXX &&
           strncmp(message, "non-constant-expression cannot be narrowed from type ", 53) == 0;
}

/* CUDA host code that declares the thread indices itself for its host
 * pass (`extern const dim3 blockDim;` under `#ifndef __CUDA_ARCH__`, a
 * header many miners copy): nvcc's host pass declares them as dim3 and
 * uint3 too, clang's as builtin types of its own, so only clang calls it a
 * redeclaration with another type (docs/realcode.md, ethminer). */
static bool nvcc_declares_builtin(const char *message)
{
    /* As nvcc's host pass has them (uint3 threadIdx, blockIdx; dim3
     * blockDim, gridDim): a header's own types for them are a conflict
     * under nvcc too. */
    static const char *const as_nvcc[] = {
        "' with a different type: 'const dim3' vs 'const __cuda_builtin_",
        "' with a different type: 'const uint3' vs 'const __cuda_builtin_",
        "' with a different type: 'dim3' vs 'const __cuda_builtin_",
        "' with a different type: 'uint3' vs 'const __cuda_builtin_",
    };
    if (strncmp(message, "redeclaration of '", 18) != 0)
        return false;
    for (size_t i = 0; i < sizeof as_nvcc / sizeof *as_nvcc; i++)
        if (strstr(message, as_nvcc[i]))
            return true;
    return false;
}

static void collect_parse_errors(walk_ctx *ctx)
{
    unsigned n = clang_getNumDiagnostics(ctx->tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(ctx->tu, i);
        enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
        CXFile file;
        unsigned line, col, offset;
        clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, &line,
                                   &col, &offset);
        char *message = sev >= CXDiagnostic_Error ? cx_take(clang_getDiagnosticSpelling(d)) : NULL;
        clang_disposeDiagnostic(d);
        if (!message)
            continue;
        if (sev == CXDiagnostic_Fatal || is_fatal_text(message)) {
            record_fatal(ctx, message, file, line, col, offset);
        } else if (file && clang_File_isEqual(file, ctx->main_file) &&
                   !in_device_body(ctx, offset) &&
                   !gcc_accepts(ctx->src->lang, message) &&
                   !(ctx->src->lang == LANG_CUDA && nvcc_declares_builtin(message))) {
            fact_parse_error *e = XPUSH(ctx->facts->parse_errors,
                                            ctx->facts->n_parse_errors);
            e->message = message;
            e->loc.line = line;
            e->loc.col = col;
        } else {
            free(message);
        }
    }
    /* Without the toolkit clang parses CUDA as C++ without __global__ and
     * the rest, whatever the file includes: said once, unless a missing
     * #include already says it. */
    if (ctx->src->lang == LANG_CUDA && ctx->facts->n_not_checked == 0 && !g.cuda_found)
        record_not_checked(ctx, UNCHECKED_NO_CUDA, xstrdup(g.cuda_path), NULL, 1, 1);
}

static void note_inclusion(CXFile included, CXSourceLocation *stack, unsigned depth,
                           CXClientData data)
{
    (void)stack;
    if (depth == 0)
        return;   /* the main file: it is in the key */
    char *name = cx_take(clang_getFileName(included));
    fact_strs *files = data;
    *XPUSH(files->items, files->n) = facts_cache_canonical(name);
    free(name);
}

static enum CXErrorCode parse(CXIndex index, const snapshot *snap,
                              const source_file *src, const gl_config *cfg,
                              struct CXUnsavedFile *unsaved, size_t nunsaved, const char *pch,
                              CXTranslationUnit *tu)
{
    arg_list args = { 0 };
    build_args(&args, snap, src, cfg, pch);
    enum CXErrorCode rc = clang_parseTranslationUnit2(
        index, src->abs_path, args.argv, (int)args.n, unsaved,
        (unsigned)nunsaved, CXTranslationUnit_KeepGoing, tu);
    arg_list_free(&args);
    return rc;
}

static const char *cx_error_text(enum CXErrorCode rc)
{
    switch (rc) {
    case CXError_Crashed: return "libclang crashed";
    case CXError_InvalidArguments: return "invalid arguments";
    case CXError_ASTReadError: return "AST read error (bad compiler flags?)";
    default: return "failure";
    }
}

/* Whether the file's leading conditional blocks (its first blocks_end
 * bytes, after its leading #define lines; preamble.h) take no group with
 * content when read on `pch` (NULL: none), as the file's own preprocessor
 * reads them: the file's path and flags, its text cut after the blocks.
 * Their conditions test only which macros are defined, so the answer is
 * kept per flags (the PCH among them) and text. */
static bool blocks_inert(CXIndex cx_index, const snapshot *snap, const source_file *src,
                         const gl_config *cfg, size_t blocks_end, const char *pch)
{
    static struct {
        char **keys;       /* the flags, each with its NUL, then the text */
        size_t *key_lens;
        bool *inert;
        size_t n;
        pthread_mutex_t lock;
    } memo = {.lock = PTHREAD_MUTEX_INITIALIZER};
    arg_list args = {0};
    build_args(&args, snap, src, cfg, pch);
    byte_buf key_buf = {0};
    for (size_t i = 0; i < args.n; i++)
        buf_append(&key_buf, args.argv[i], strlen(args.argv[i]) + 1);   /* with its NUL */
    buf_append(&key_buf, src->text, blocks_end);
    char *key = key_buf.data;
    size_t key_len = key_buf.len;
    pthread_mutex_lock(&memo.lock);
    for (size_t i = 0; i < memo.n; i++) {
        if (memo.key_lens[i] == key_len && memcmp(memo.keys[i], key, key_len) == 0) {
            bool inert = memo.inert[i];
            pthread_mutex_unlock(&memo.lock);
            free(key);
            arg_list_free(&args);
            return inert;
        }
    }
    pthread_mutex_unlock(&memo.lock);
    struct CXUnsavedFile cut = {src->abs_path, src->text, (unsigned long)blocks_end};
    CXTranslationUnit tu = NULL;
    bool inert = false;
    /* The detailed record is what keeps the skipped ranges. */
    if (clang_parseTranslationUnit2(cx_index, src->abs_path, args.argv, (int)args.n, &cut, 1,
                                    CXTranslationUnit_KeepGoing |
                                        CXTranslationUnit_DetailedPreprocessingRecord,
                                    &tu) == CXError_Success) {
        CXFile file = clang_getFile(tu, src->abs_path);
        CXSourceRangeList *skipped = file ? clang_getSkippedRanges(tu, file) : NULL;
        if (skipped) {
            unsigned (*lines)[2] = xcalloc(skipped->count ? skipped->count : 1, sizeof *lines);
            for (unsigned r = 0; r < skipped->count; r++) {
                clang_getSpellingLocation(clang_getRangeStart(skipped->ranges[r]), NULL,
                                          &lines[r][0], NULL, NULL);
                clang_getSpellingLocation(clang_getRangeEnd(skipped->ranges[r]), NULL,
                                          &lines[r][1], NULL, NULL);
            }
            inert = preamble_blocks_skipped(src, blocks_end, (const unsigned (*)[2])lines,
                                            skipped->count);
            free(lines);
            clang_disposeSourceRangeList(skipped);
        }
        clang_disposeTranslationUnit(tu);
    }
    arg_list_free(&args);
    pthread_mutex_lock(&memo.lock);
    memo.keys = xrealloc(memo.keys, (memo.n + 1) * sizeof *memo.keys);
    memo.key_lens = xrealloc(memo.key_lens, (memo.n + 1) * sizeof *memo.key_lens);
    memo.inert = xrealloc(memo.inert, (memo.n + 1) * sizeof *memo.inert);
    memo.keys[memo.n] = key;
    memo.key_lens[memo.n] = key_len;
    memo.inert[memo.n++] = inert;
    pthread_mutex_unlock(&memo.lock);
    return inert;
}

/* Parse snap->files[tu_index] as a translation unit, handed the snapshot
 * files its includes can reach, with the PCH of its include set, else the
 * language's, else none. */
static enum CXErrorCode parse_unit(CXIndex cx_index, const snapshot *snap, size_t tu_index,
                                   const gl_config *cfg, const snapshot_reach *reach,
                                   CXTranslationUnit *tu)
{
    const source_file *src = &snap->files[tu_index];
    double cpu_start = thread_cpu_seconds();
    double build_start = preamble_build_cpu();
    write_gcc_forwarders();
    size_t *reached;
    size_t nunsaved = reach_files(reach, tu_index, &reached);
    struct CXUnsavedFile *unsaved = xcalloc(nunsaved ? nunsaved : 1, sizeof *unsaved);
    for (size_t k = 0; k < nunsaved; k++) {
        const source_file *f = reached[k] < snap->nfiles ? &snap->files[reached[k]]
                                                         : &snap->context[reached[k] - snap->nfiles];
        unsaved[k].Filename = f->abs_path;
        unsaved[k].Contents = f->parse_text ? f->parse_text : f->text;
        unsaved[k].Length = f->len;
    }
    free(reached);
    bool with_pch = can_use_pch(snap, tu_index, cfg, reach) && base_pch_ready(src->lang);
    include_set set = {0};
    const char *set_pch = NULL;
    if (g.set_of && tu_index < g.nset_of) {
        unit_include_set(snap, tu_index, cfg, with_pch, &set);
        /* Leading blocks that take a group where they stand refuse the set
         * before it is built for this file (preamble.h, "blocks"). */
        size_t blocks_end = g.blocks_end_of ? g.blocks_end_of[tu_index] : 0;
        bool blocks_ok = !set.prelude || !blocks_end ||
                         blocks_inert(cx_index, snap, src, cfg, blocks_end,
                                      with_pch ? g.pch_path[src->lang] : NULL);
        if (set.prelude && blocks_ok)
            set_pch = include_set_pch(&set);
        hoist_info *hoist = g.hoist_of ? g.hoist_of[tu_index] : NULL;
        if (set_pch && hoist &&
            !hoist_safe(set_pch, g.unhoisted_of[tu_index], hoist)) {
            set_pch = NULL;   /* parsed without a PCH: certain */
            if (getenv("GPULINT_TRACE"))
                fprintf(stderr, "gpulint: trace: hoist refused %s\n", src->path);
        }
        if (set_pch && blocks_end && !blocks_inert(cx_index, snap, src, cfg, blocks_end, set_pch)) {
            set_pch = NULL;
            blocks_ok = false;
        }
        if (!blocks_ok && getenv("GPULINT_TRACE"))
            fprintf(stderr, "gpulint: trace: blocks refused %s\n", src->path);
    }
    enum CXErrorCode rc = CXError_Failure;
    const char *used = "set";
    if (set_pch) {
        rc = parse(cx_index, snap, src, cfg, unsaved, nunsaved, set_pch, tu);
        if (rc != CXError_Success)
            preamble_discard(set.key);   /* refused: a header changed since */
    }
    include_set_free(&set);
    if (rc != CXError_Success && with_pch) {
        used = "base";
        rc = parse(cx_index, snap, src, cfg, unsaved, nunsaved, g.pch_path[src->lang], tu);
    }
    if (rc != CXError_Success) {
        /* No PCH, or one the file's own flags are incompatible with (e.g.
         * -D of a macro the CUDA headers test): the slow, certain way. */
        used = "no";
        rc = parse(cx_index, snap, src, cfg, unsaved, nunsaved, NULL, tu);
    }
    free(unsaved);
    /* GPULINT_TRACE: one stderr line per translation unit parsed
     * (tests/analyzer/parse_once.bats counts them; measurements; also
     * analyzer/results.c). The CPU of the sets built for it is told
     * apart, each also on its own build line: counted into the parse, a
     * set's 0.9 s build read as a 0.99 s parse of layer/attention_kernels.cu
     * (docs/performance.md, "Branch s16-speed"). */
    if (getenv("GPULINT_TRACE")) {
        double built = preamble_build_cpu() - build_start;
        char building[64] = "";
        if (built > 0)
            snprintf(building, sizeof building, ", and %.3f s CPU building its set", built);
        /* One write: stderr is unbuffered and the workers share it. */
        fprintf(stderr, "gpulint: trace: parse %s (worker %d, %s PCH, %.3f s CPU%s)\n",
                src->path, (int)getpid(), used, thread_cpu_seconds() - cpu_start - built,
                building);
    }
    return rc;
}

/* The cached facts of snap->files[index], or NULL; *key (when key is not
 * NULL) keeps the cache key for storing what a parse finds, NULL without a
 * cache. */
static file_facts *cache_lookup(const snapshot *snap, size_t index, const gl_config *cfg,
                                const snapshot_reach *reach, char **key)
{
    char *cache_key = g.facts_dir ? facts_cache_key(g.identity, snap, &snap->files[index], cfg)
                                  : NULL;
    file_facts *cached = cache_key ? facts_cache_load(g.facts_dir, cache_key, reach) : NULL;
    if (key && !cached)
        *key = cache_key;
    else
        free(cache_key);
    return cached;
}

char *facts_cache_key_of(const snapshot *snap, size_t index, const gl_config *cfg)
{
    return g.facts_dir ? facts_cache_key(g.identity, snap, &snap->files[index], cfg) : NULL;
}

char *facts_cached_key(const snapshot *snap, size_t index, const gl_config *cfg)
{
    if (!g.facts_dir || !g.reach || snap->files[index].not_checked)
        return NULL;
    char *key = facts_cache_key(g.identity, snap, &snap->files[index], cfg);
    if (facts_cache_fresh(g.facts_dir, key, g.reach))
        return key;
    free(key);
    return NULL;
}

const char *facts_results_dir(void)
{
    return g.results_dir;
}

file_facts *facts_extract_cached(const snapshot *snap, size_t index, const gl_config *cfg)
{
    if (!g.facts_dir)
        return NULL;
    snapshot_reach *own_reach = g.reach ? NULL : reach_build(snap, cfg);
    file_facts *cached = cache_lookup(snap, index, cfg, g.reach ? g.reach : own_reach, NULL);
    reach_free(own_reach);
    return cached;
}

/* Facts of a file libclang made no translation unit of: only why. */
static file_facts *unbuilt_facts(enum CXErrorCode rc)
{
    return facts_not_checked(rc == CXError_Crashed ? UNCHECKED_CRASH : UNCHECKED_NO_TU,
                             xstrdup(cx_error_text(rc)));
}

/* Whether a file's facts may be cached: checked in full, or kept from it
 * only by headers not found. Anything else that stopped clang (a file it
 * could not read, a nesting bound, no CUDA toolkit) is not cached. */
static bool cacheable(const file_facts *facts)
{
    for (size_t i = 0; i < facts->n_not_checked; i++)
        if (facts->not_checked[i].cause != UNCHECKED_MISSING_INCLUDE)
            return false;
    return true;
}

static void fact_strs_clear(fact_strs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->items[i]);
    free(s->items);
    *s = (fact_strs){0};
}

static void add_dir(fact_strs *dirs, const char *dir, size_t len)
{
    for (size_t i = 0; i < dirs->n; i++)
        if (strlen(dirs->items[i]) == len && memcmp(dirs->items[i], dir, len) == 0)
            return;
    *XPUSH(dirs->items, dirs->n) = xstrndup(dir, len);
}

static void add_dir_of(fact_strs *dirs, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash)
        add_dir(dirs, path, slash > path ? (size_t)(slash - path) : 1);
}

/* The paths where a header that was not found would have been found, had
 * it been there: each missing name under every directory the parse could
 * search. That is the directories of its search options (-I, -isystem,
 * -iquote, -idirafter, joined or not), those of the files it did include
 * (which holds clang's and the system's own: /usr/include, the compiler's
 * include dir, CUDA's), its own, and /usr/local/include and /usr/include,
 * which clang searches even when nothing was found there. The entry holds
 * until one of them exists: a header installed, an include dir filled. */
static void where_missing(const file_facts *facts, const source_file *parsed,
                          const arg_list *args, const fact_strs *included, fact_strs *absent)
{
    static const char *const search_flags[] = {"-I", "-isystem", "-iquote", "-idirafter"};
    fact_strs dirs = {0};
    for (size_t i = 0; i < args->n; i++) {
        for (size_t f = 0; f < sizeof search_flags / sizeof search_flags[0]; f++) {
            size_t n = strlen(search_flags[f]);
            if (strncmp(args->argv[i], search_flags[f], n) != 0)
                continue;
            const char *dir = args->argv[i][n] ? args->argv[i] + n
                              : i + 1 < args->n ? args->argv[i + 1] : NULL;
            if (dir && *dir)
                add_dir(&dirs, dir, strlen(dir));
        }
    }
    for (size_t i = 0; i < included->n; i++)
        add_dir_of(&dirs, included->items[i]);
    add_dir_of(&dirs, parsed->abs_path);
    add_dir(&dirs, "/usr/local/include", strlen("/usr/local/include"));
    add_dir(&dirs, "/usr/include", strlen("/usr/include"));
    for (size_t k = 0; k < facts->n_not_checked; k++) {
        const char *name = facts->not_checked[k].detail;
        if (name[0] == '/') {
            add_dir(absent, name, strlen(name));
            continue;
        }
        for (size_t d = 0; d < dirs.n; d++) {
            char *path = xasprintf("%s/%s", dirs.items[d], name);
            add_dir(absent, path, strlen(path));
            free(path);
        }
    }
    fact_strs_clear(&dirs);
}

/* Translation units a worker keeps once walked. A header of several
 * programs is analysed in a unit of each (source_file.other_contexts), and
 * the same few units serve many headers (this repository's
 * tests/gpu/test_layer_gpu.c for 8 of layer/'s): each was parsed again for
 * every header that names it and for its own job, 97 of a cold run's 208
 * parses here. Only such units are kept, the least recently used going
 * first, bounded in number and memory. A unit in use is taken out, so
 * that making room never disposes of it. */
#define KEPT_UNITS 32
#define KEPT_BYTES ((unsigned long)128 << 20)

static struct {
    CXIndex index;   /* every parse's (excludeDeclarationsFromPCH = 1: walking
                        skips the PCH's declarations), made on first use */
    struct {
        size_t unit;
        CXTranslationUnit tu;
        unsigned long bytes;
        unsigned long long used;
    } units[KEPT_UNITS];
    size_t n;
    unsigned long bytes;
    unsigned long long clock;
} kept;

static CXIndex parse_index(void)
{
    if (!kept.index)
        kept.index = clang_createIndex(1, 0);
    return kept.index;
}

/* The kept unit of snap->files[unit], now the caller's, or NULL. */
static CXTranslationUnit kept_take(size_t unit)
{
    for (size_t i = 0; i < kept.n; i++) {
        if (kept.units[i].unit != unit)
            continue;
        CXTranslationUnit tu = kept.units[i].tu;
        kept.bytes -= kept.units[i].bytes;
        kept.units[i] = kept.units[--kept.n];
        return tu;
    }
    return NULL;
}

static unsigned long tu_bytes(CXTranslationUnit tu)
{
    CXTUResourceUsage usage = clang_getCXTUResourceUsage(tu);
    unsigned long bytes = 0;
    for (unsigned i = 0; i < usage.numEntries; i++)
        bytes += usage.entries[i].amount;
    clang_disposeCXTUResourceUsage(usage);
    return bytes;
}

/* Keep a unit the caller is done with, or dispose of it: kept when some
 * header is analysed in it as another program's and it fits. */
static void kept_give(size_t unit, CXTranslationUnit tu)
{
    unsigned long bytes = g.other_unit && unit < g.nother_unit && g.other_unit[unit]
                              ? tu_bytes(tu) : KEPT_BYTES + 1;
    if (bytes > KEPT_BYTES / 2) {
        clang_disposeTranslationUnit(tu);
        return;
    }
    while (kept.n > 0 && (kept.n == KEPT_UNITS || kept.bytes + bytes > KEPT_BYTES)) {
        size_t oldest = 0;
        for (size_t i = 1; i < kept.n; i++)
            if (kept.units[i].used < kept.units[oldest].used)
                oldest = i;
        clang_disposeTranslationUnit(kept.units[oldest].tu);
        kept.bytes -= kept.units[oldest].bytes;
        kept.units[oldest] = kept.units[--kept.n];
    }
    kept.units[kept.n].unit = unit;
    kept.units[kept.n].tu = tu;
    kept.units[kept.n].bytes = bytes;
    kept.units[kept.n].used = ++kept.clock;
    kept.n++;
    kept.bytes += bytes;
}

static void kept_clear(void)
{
    for (size_t i = 0; i < kept.n; i++)
        clang_disposeTranslationUnit(kept.units[i].tu);
    if (kept.index)
        clang_disposeIndex(kept.index);
    memset(&kept, 0, sizeof kept);
}

/* What check_macro_inclusion needs besides each inclusion. */
typedef struct {
    const snapshot *snap;
    const snapshot_reach *reach;
    walk_ctx *ctx;
} macro_inclusions;

static void ignore_name(const char *name, size_t len, bool quoted, void *ctx)
{
    (void)name;
    (void)len;
    (void)quoted;
    (void)ctx;
}

/* Whether line `line` of f is an #include (#include_next, #import) of a
 * macro that names no file gpulint can tell. */
static bool unresolved_include_at(const snapshot_reach *reach, const source_file *f,
                                  unsigned line)
{
    const char *p;
    size_t len;
    if (!source_line_text(f, line, &p, &len))
        return false;
    const char *end = p + len, *operand = NULL;
    p = skip_directive_blanks(p, end);
    if (p == end || *p != '#')
        return false;
    p = skip_directive_blanks(p + 1, end);
    static const char *const keywords[] = {"include", "include_next", "import"};
    for (size_t k = 0; !operand && k < sizeof keywords / sizeof keywords[0]; k++)
        operand = operand_after(p, end, keywords[k]);
    return operand &&
           !include_operand_names(reach_macros(reach), NULL, operand, end, ignore_name, NULL);
}

/* Whether snapshot file f is analysed in a unit of the program of `path`
 * (source_file.context, other_contexts; programs as path_same_program). */
static bool analysed_in_program(const snapshot *snap, const source_file *f, const char *path)
{
    if (f->context >= 0 && path_same_program(snap->files[f->context].path, path))
        return true;
    for (size_t k = 0; k < f->nother_contexts; k++)
        if (path_same_program(snap->files[f->other_contexts[k]].path, path))
            return true;
    return false;
}

/* An inclusion of a unit: a snapshot file that an #include of a macro
 * gpulint could not follow opened (input/include_names.h), and that is
 * analysed in no unit of this program for it, was not checked as this
 * unit sees it: said once per file. */
static void check_macro_inclusion(CXFile included, CXSourceLocation *stack, unsigned depth,
                                  CXClientData data)
{
    macro_inclusions *m = data;
    if (depth == 0)
        return;
    char *name = cx_take(clang_getFileName(included));
    char *canon = path_canonical(name);
    free(name);
    const source_file *f = reach_find(m->reach, canon);
    free(canon);
    const snapshot *snap = m->snap;
    if (!f || f < snap->files || f >= snap->files + snap->nfiles || f == m->ctx->src ||
        analysed_in_program(snap, f, m->ctx->src->path))
        return;
    CXFile at_file;
    unsigned at_line, main_line;
    clang_getFileLocation(stack[0], &at_file, &at_line, NULL, NULL);
    clang_getFileLocation(stack[depth - 1], NULL, &main_line, NULL, NULL);
    char *at_name = cx_take(clang_getFileName(at_file));
    char *at_canon = path_canonical(at_name);
    free(at_name);
    const source_file *at = reach_find(m->reach, at_canon);
    free(at_canon);
    if (!at || !unresolved_include_at(m->reach, at, at_line))
        return;
    for (size_t k = 0; k < m->ctx->facts->n_not_checked; k++)
        if (m->ctx->facts->not_checked[k].cause == UNCHECKED_MACRO_INCLUDE &&
            strcmp(m->ctx->facts->not_checked[k].detail, f->path) == 0)
            return;
    record_not_checked(m->ctx, UNCHECKED_MACRO_INCLUDE, xstrdup(f->path),
                       at == m->ctx->src ? NULL : xstrdup(at->abs_path), main_line, 1);
}

/* What the unit of another program (source_file.other_contexts) shows of
 * the headers of a group: its facts of each, NULL where the unit does not
 * reach the header after all (an #if) or libclang made none. One parse of
 * that unit serves every header of the group it is a context of: parsed
 * once per header, nccl's src/ .cc units were parsed about 90 times each
 * (1,100 of a whole run's 1,542 parses; docs/realcode.md, "Sixth round"). */
typedef struct {
    size_t unit;             /* the other program's unit */
    file_facts **facts;      /* by position in the group; taken by extract_one */
    bool *failed_before;     /* by position: that unit stopped before it had
                                read the header in full (walk_ctx) */
    fact_strs included;      /* the unit's inclusions, when the cache wants them */
} other_unit_view;

/* The translation unit the files of a group share (facts_extract_group):
 * parsed on first need, once; and the other programs' units its headers
 * are analysed in as well, each parsed once for the whole job. A job may
 * hold the groups of several units, one after another (extract/contain.c
 * puts the groups of the other programs' units a group needs before it):
 * `files` is the whole job, `index` the unit of the group at `at`. */
typedef struct {
    size_t index;            /* the unit's file */
    bool tried;
    enum CXErrorCode rc;
    CXTranslationUnit tu;    /* NULL unless rc is CXError_Success */
    const size_t *files;     /* the job's files */
    size_t nfiles;
    size_t at;               /* the position in files of the one being extracted */
    other_unit_view *others;
    size_t nothers;
} shared_unit;

static bool has_other_context(const source_file *src, size_t unit)
{
    for (size_t k = 0; k < src->nother_contexts; k++)
        if ((size_t)src->other_contexts[k] == unit)
            return true;
    return false;
}

/* Whether snap->files[unit] is another program's unit of src, or one of
 * its fallbacks (source_file.fallbacks): a unit it may be analysed in
 * besides its context's. */
static bool has_other_unit(const source_file *src, size_t unit)
{
    for (size_t k = 0; k < src->nfallbacks; k++)
        if ((size_t)src->fallbacks[k] == unit)
            return true;
    return has_other_context(src, unit);
}

/* The facts header `src` has in `tu`, a unit that is not its context's;
 * NULL when the unit does not include it. *failed_before: whether the unit
 * stopped before it had read the header in full. */
static file_facts *facts_in_unit(CXTranslationUnit tu, const source_file *src,
                                 const snapshot_reach *reach, bool *failed_before)
{
    *failed_before = false;
    CXFile main_file = header_opened_by_unit(tu, src, reach, NULL);
    if (!main_file)
        return NULL;
    file_facts *facts = xcalloc(1, sizeof *facts);
    walk_ctx ctx = {
        .tu = tu,
        .main_file = main_file,
        .header_in_unit = true,
        .src = src,
        .facts = facts,
        .reach = reach,
        .cuda_include = g.cuda_include,
    };
    extract_walk(&ctx);
    collect_parse_errors(&ctx);
    free(ctx.device_bodies);
    free(ctx.invalid_device_params);
    *failed_before = ctx.n_failed_before > 0;
    free(ctx.failed_before);
    return facts;
}

static other_unit_view *add_view(shared_unit *group, size_t unit)
{
    other_unit_view *view = XPUSH(group->others, group->nothers);
    *view = (other_unit_view){.unit = unit,
                              .facts = xcalloc(group->nfiles, sizeof *view->facts),
                              .failed_before = xcalloc(group->nfiles, sizeof *view->failed_before)};
    return view;
}

/* Walk `tu`, snap->files[view->unit]'s unit, for every file of the job
 * from position `from` on that it is another program's context of. */
static void walk_view(const snapshot *snap, other_unit_view *view, CXTranslationUnit tu,
                      const shared_unit *group, size_t from, const snapshot_reach *reach)
{
    bool reached = false;
    for (size_t k = from; k < group->nfiles; k++) {
        const source_file *src = &snap->files[group->files[k]];
        if (has_other_unit(src, view->unit) &&
            (view->facts[k] = facts_in_unit(tu, src, reach, &view->failed_before[k])))
            reached = true;
    }
    if (reached && g.facts_dir)
        clang_getInclusions(tu, note_inclusion, &view->included);
}

/* Parse snap->files[unit], another program's, and walk it for every file
 * of the job from the current one on that it is a context of. */
static other_unit_view *view_other_unit(const snapshot *snap, size_t unit, shared_unit *group,
                                        const gl_config *cfg, const snapshot_reach *reach)
{
    other_unit_view *view = add_view(group, unit);
    CXTranslationUnit tu = kept_take(unit);
    if (!tu && parse_unit(parse_index(), snap, unit, cfg, reach, &tu) != CXError_Success) {
        if (tu)
            clang_disposeTranslationUnit(tu);
        return view;
    }
    if (!tu)
        return view;
    walk_view(snap, view, tu, group, group->at, reach);
    kept_give(unit, tu);
    return view;
}

/* The group's view of snap->files[unit]'s unit: the one made already, else
 * a parse of it now (view_other_unit). */
static other_unit_view *view_of_unit(const snapshot *snap, size_t unit, shared_unit *group,
                                     const gl_config *cfg, const snapshot_reach *reach)
{
    for (size_t v = 0; v < group->nothers; v++)
        if (group->others[v].unit == unit)
            return &group->others[v];
    return view_other_unit(snap, unit, group, cfg, reach);
}

/* The group of the current unit is done: before its translation unit goes
 * (kept or disposed of, kept_give), what it shows of the later groups'
 * headers that it is another program's context of, which those groups
 * would otherwise parse it again for (a unit over the keep limit: nccl's
 * 25 repeated parses, docs/realcode.md, "Seventh round"). */
static void end_group(const snapshot *snap, shared_unit *group, const snapshot_reach *reach)
{
    if (!group->tu)
        return;
    bool wanted = false;
    for (size_t k = group->at; k < group->nfiles && !wanted; k++)
        wanted = has_other_unit(&snap->files[group->files[k]], group->index);
    for (size_t v = 0; v < group->nothers && wanted; v++)
        wanted = group->others[v].unit != group->index;
    if (wanted)
        walk_view(snap, add_view(group, group->index), group->tu, group, group->at, reach);
    kept_give(group->index, group->tu);
    group->tu = NULL;
}

/* What kept that unit from being checked is said of that unit: the
 * header may be checked in full in its own. */
static void said_of_unit(const snapshot *snap, size_t unit, file_facts *facts)
{
    for (size_t k = 0; facts && k < facts->n_not_checked; k++)
        if (!facts->not_checked[k].unit)
            facts->not_checked[k].unit = xstrdup(snap->files[unit].path);
}

/* The facts the current file of the group has in snap->files[unit],
 * another program's unit, now the caller's; NULL when that unit does not
 * reach it. The unit's inclusions go to `included` (NULL: not wanted);
 * *failed_before as facts_in_unit's. */
static file_facts *facts_in_other_unit(const snapshot *snap, size_t unit, shared_unit *group,
                                       const gl_config *cfg, const snapshot_reach *reach,
                                       fact_strs *included, bool *failed_before)
{
    other_unit_view *view = view_of_unit(snap, unit, group, cfg, reach);
    file_facts *facts = view->facts[group->at];
    view->facts[group->at] = NULL;
    *failed_before = facts && view->failed_before[group->at];
    said_of_unit(snap, unit, facts);
    for (size_t i = 0; facts && included && i < view->included.n; i++)
        *XPUSH(included->items, included->n) = xstrdup(view->included.items[i]);
    return facts;
}

static void other_unit_views_free(shared_unit *group)
{
    for (size_t v = 0; v < group->nothers; v++) {
        for (size_t k = 0; k < group->nfiles; k++)
            if (group->others[v].facts[k])
                facts_free(group->others[v].facts[k]);
        free(group->others[v].facts);
        free(group->others[v].failed_before);
        fact_strs_clear(&group->others[v].included);
    }
    free(group->others);
}

/* Where the headers that snap->files[u]'s unit did not find (its
 * not-checked facts of the header) would have been, to `absent`, and the
 * unit's file to `included`: what a facts entry decided by that unit
 * depends on besides the header (where_missing, with that unit's flags). */
static void note_unit_missing(const snapshot *snap, size_t u, const file_facts *facts,
                              const gl_config *cfg, fact_strs *included, fact_strs *absent)
{
    *XPUSH(included->items, included->n) = facts_cache_canonical(snap->files[u].abs_path);
    if (!facts || facts->n_not_checked == 0)
        return;
    arg_list args = { 0 };
    build_args(&args, snap, &snap->files[u], cfg, NULL);
    where_missing(facts, &snap->files[u], &args, included, absent);
    arg_list_free(&args);
}

/* A fallback unit tried for a header, whether or not it read the header in
 * full: its file, its inclusions and the headers it did not find decide
 * which unit the header's facts come from, so the facts entry depends on
 * them (a change to any sends the header to be parsed again). */
static void note_tried_unit(const snapshot *snap, size_t u, const other_unit_view *view,
                            size_t at, const gl_config *cfg, fact_strs *included,
                            fact_strs *absent)
{
    for (size_t i = 0; i < view->included.n; i++)
        *XPUSH(included->items, included->n) = xstrdup(view->included.items[i]);
    note_unit_missing(snap, u, view->failed_before[at] ? view->facts[at] : NULL, cfg, included,
                      absent);
}

/* The facts the current file of the group has in the first of its
 * fallbacks (source_file.fallbacks) of the program of snap->files[failed],
 * a unit that stopped before it had read the file in full, whose unit reads
 * it without so stopping (its file to *used); NULL when none does. Each
 * fallback is parsed once for the whole job and walked for every file of
 * it that it is a unit of, as another program's unit is (view_other_unit):
 * parsed once per header, cuCollections' benchmark units were parsed again
 * for each of the dozens of library headers they include. */
static file_facts *facts_in_fallback(const snapshot *snap, size_t failed, shared_unit *group,
                                     const gl_config *cfg, const snapshot_reach *reach,
                                     size_t *used, fact_strs *included, fact_strs *absent)
{
    const source_file *src = &snap->files[group->files[group->at]];
    for (size_t k = 0; k < src->nfallbacks; k++) {
        size_t u = (size_t)src->fallbacks[k];
        if (!path_same_program(snap->files[u].path, snap->files[failed].path))
            continue;
        other_unit_view *view = view_of_unit(snap, u, group, cfg, reach);
        if (included)
            note_tried_unit(snap, u, view, group->at, cfg, included, absent);
        file_facts *facts = view->facts[group->at];
        if (facts && !view->failed_before[group->at]) {
            view->facts[group->at] = NULL;
            *used = u;
            return facts;
        }
    }
    return NULL;
}

/* Whether the file of `tu`, parsed as a unit of its own, has neither a
 * compiler error nor a cause of not-checked in it. */
static bool parses_clean(CXTranslationUnit tu, const source_file *src)
{
    file_facts *facts = xcalloc(1, sizeof *facts);
    walk_ctx ctx = {
        .tu = tu,
        .main_file = clang_getFile(tu, src->abs_path),
        .src = src,
        .facts = facts,
    };
    extract_walk(&ctx);   /* first: it finds the device bodies */
    collect_parse_errors(&ctx);
    free(ctx.device_bodies);
    free(ctx.invalid_device_params);
    bool clean = facts->n_parse_errors == 0 && facts->n_not_checked == 0;
    facts_free(facts);
    return clean;
}

/* The facts of snap->files[index] found in a translation unit: the shared
 * unit when it reaches the file, else a parse of the file's own. */
static file_facts *extract_one(const snapshot *snap, size_t index, const gl_config *cfg,
                               const snapshot_reach *reach, shared_unit *unit)
{
    const source_file *src = &snap->files[index];
    char *cache_key = NULL;
    file_facts *cached = cache_lookup(snap, index, cfg, reach, &cache_key);
    if (cached)
        return cached;
    arg_list scanned = { 0 };
    build_args(&scanned, snap, src, cfg, NULL);
    /* Without the flags every parse starts with (base_args): the CUDA
     * toolkit's directories are not the project's, like those clang adds
     * itself (extract/includes.c), which a .cu file's parse already left
     * out. Following a C file's <cuda_runtime_api.h> through the toolkit
     * read and masked a megabyte of headers per parse: 12 ms of a
     * one-file commit's 60 ms in its worker (docs/hooks.md). */
    const char *base[MAX_BASE_ARGS];
    size_t nbase = base_args(src->lang, base);
    unsigned hazard_line;
    char *hazard = include_hazard(snap, index, scanned.argv + nbase, scanned.n - nbase,
                                  cfg ? cfg->limits.file_bytes : GL_DEFAULT_FILE_BYTES,
                                  &hazard_line);
    arg_list_free(&scanned);
    if (hazard) {
        free(cache_key);
        file_facts *facts = facts_not_checked(UNCHECKED_INCLUDE_HAZARD, hazard);
        facts->not_checked[0].loc.line = hazard_line;
        return facts;
    }
    CXTranslationUnit tu = NULL, own_tu = NULL;
    CXFile main_file = NULL;
    char *copy = NULL;   /* what its unit opened in its place, when not it */
    enum CXErrorCode rc = CXError_Success;
    /* A source file that another file includes (input/source.h: context)
     * may be a program of its own as well (llm.c's train_gpt2.cu, which
     * test_gpt2.cu includes with TESTING defined, leaving out its main):
     * one that parses on its own without an error is its own unit; one
     * that needs its includer's declarations (cuda-samples'
     * graphics_interface.c, after the X11 headers of simpleGLES.cu) is
     * analysed in the includer's, as a header is. */
    bool own_unit = false;
    if (!src->is_header && src->context >= 0 &&
        parse_unit(parse_index(), snap, index, cfg, reach, &own_tu) == CXError_Success && own_tu)
        own_unit = parses_clean(own_tu, src);
    if (own_tu && !own_unit) {
        clang_disposeTranslationUnit(own_tu);
        own_tu = NULL;
    }
    /* A header is analysed inside the translation unit of a source file
     * that includes it, with that file's flags, macros and types, as its
     * build compiles it; its facts are those located in the header. One
     * that unit does not reach after all (an #if) is parsed on its own. */
    if (!own_unit && !unit->tried) {
        unit->tried = true;
        unit->tu = kept_take(unit->index);
        unit->rc = unit->tu ? CXError_Success
                            : parse_unit(parse_index(), snap, unit->index, cfg, reach, &unit->tu);
        if (unit->rc != CXError_Success && unit->tu) {
            clang_disposeTranslationUnit(unit->tu);
            unit->tu = NULL;
        }
    }
    if (own_unit) {
        tu = own_tu;
        main_file = clang_getFile(tu, src->abs_path);
    } else if (index == unit->index) {
        rc = unit->rc;
        tu = unit->tu;
        main_file = tu ? clang_getFile(tu, src->abs_path) : NULL;
    } else if (unit->tu &&
               (main_file = header_opened_by_unit(unit->tu, src, reach, &copy)) != NULL) {
        tu = unit->tu;
    } else {
        rc = parse_unit(parse_index(), snap, index, cfg, reach, &own_tu);
        tu = own_tu;
        main_file = tu ? clang_getFile(tu, src->abs_path) : NULL;
    }
    if (rc != CXError_Success || !tu) {
        free(cache_key);
        free(copy);
        if (own_tu)
            clang_disposeTranslationUnit(own_tu);
        return unbuilt_facts(rc == CXError_Success ? CXError_Failure : rc);
    }
    file_facts *facts = xcalloc(1, sizeof *facts);
    walk_ctx ctx = {
        .tu = tu,
        .main_file = main_file,
        .header_in_unit = !own_unit && src->context >= 0 && main_file &&
                          !clang_File_isEqual(main_file,
                                              clang_getFile(tu, snap->files[src->context].abs_path)),
        .src = src,
        .facts = facts,
        .reach = reach,
        .cuda_include = g.cuda_include,
    };
    extract_walk(&ctx);   /* first: it finds the device bodies */
    collect_parse_errors(&ctx);
    free(ctx.device_bodies);
    free(ctx.invalid_device_params);
    /* Its unit stopped before it had read the header in full (an #include
     * not found): the next includer of its program whose unit reads it
     * without stopping is its unit. The header is checked when any unit
     * reads it so; the causes stay reported at their units' files. */
    /* What the facts entry depends on: this parse's inclusions, and those
     * of every unit a fallback tried (note_tried_unit). */
    fact_strs included = { 0 }, absent = { 0 };
    fact_strs *deps = cache_key ? &included : NULL;
    if (cache_key)
        clang_getInclusions(tu, note_inclusion, &included);
    bool own_checked = true, some_checked = false;
    size_t used;
    if (ctx.n_failed_before > 0 && tu == unit->tu) {
        file_facts *better = facts_in_fallback(snap, unit->index, unit, cfg, reach, &used, deps,
                                               &absent);
        own_checked = better != NULL;
        if (better) {
            /* Were the headers its own unit missed there, that unit would
             * read the header in full and be its unit again. */
            if (deps)
                note_unit_missing(snap, unit->index, facts, cfg, &included, &absent);
            facts_free(facts);
            facts = better;
        }
    }
    if (main_file && clang_File_isEqual(main_file, clang_getFile(tu, src->abs_path)) &&
        !ctx.header_in_unit && reach_unresolved(reach, (size_t)(src - snap->files))) {
        macro_inclusions m = {snap, reach, &ctx};
        clang_getInclusions(tu, check_macro_inclusion, &m);
    }
    /* A header of several programs: what each other program's unit shows
     * of it too, each fact once. */
    file_facts *others = NULL;
    for (size_t k = 0; ctx.header_in_unit && k < src->nother_contexts; k++) {
        bool failed = false;
        file_facts *more = facts_in_other_unit(snap, (size_t)src->other_contexts[k], unit,
                                               cfg, reach, cache_key ? &included : NULL, &failed);
        file_facts *better = failed ? facts_in_fallback(snap, (size_t)src->other_contexts[k],
                                                        unit, cfg, reach, &used, deps, &absent)
                                    : NULL;
        if (better) {
            said_of_unit(snap, used, better);
            if (deps)
                note_unit_missing(snap, (size_t)src->other_contexts[k], more, cfg, &included,
                                  &absent);
            facts_free(more);
            more = better;
        }
        some_checked |= more && (!failed || better);
        if (more && others)
            facts_merge(others, more);
        else if (more)
            others = more;
    }
    bool in_other_unit = others != NULL;
    /* Its context's unit does not include it (a branch that unit's file
     * does not take: a .cu all inside `#if defined(USE_NCCL)`) and no other
     * program's does: the next includer of its own program whose unit reads
     * it in full is its unit, as when the context's unit stops before it,
     * not the parse on its own without an includer's flags. */
    if (!others && tu == own_tu && !own_unit && unit->tu && src->context >= 0) {
        file_facts *better = facts_in_fallback(snap, unit->index, unit, cfg, reach, &used, deps,
                                               &absent);
        if (better) {
            facts_free(facts);
            facts = better;
            in_other_unit = true;
        }
    }
    /* No unit of its own program read it in full, and another program's
     * did: that is the unit it was checked in, and its own program's is
     * one more other program's whose view of it was not checked. */
    for (size_t k = 0; !own_checked && some_checked && k < ctx.n_failed_before; k++) {
        fact_not_checked *u = &facts->not_checked[ctx.failed_before[k]];
        if (!u->unit)
            u->unit = xstrdup(snap->files[unit->index].path);
    }
    free(ctx.failed_before);
    if (others && tu == own_tu && !own_unit) {
        /* Its context's unit does not include it (a branch that build does
         * not take) and another program's does: what that unit shows is the
         * header as a build compiles it, and the parse on its own, without
         * an includer's types and macros, adds only its errors (the round
         * seven nccl_device headers, docs/realcode.md). */
        facts_free(facts);
        facts = others;
    } else if (others) {
        facts_merge(facts, others);
    }
    /* Parsed on its own although it has an includer, whose unit was built
     * but does not include it (rules/lost_header.c reports that once). */
    if (tu == own_tu && !own_unit && unit->tu && src->context >= 0 && !in_other_unit) {
        fact_outside_unit *outside = XPUSH(facts->outside_unit, facts->n_outside_unit);
        outside->unit = xstrdup(snap->files[unit->index].path);
        outside->copy = copy;
        copy = NULL;
    }
    free(copy);
    /* where_missing knows the search path of one unit only: a header of
     * several programs with a header not found is parsed again each run. */
    bool store = cache_key && cacheable(facts) &&
                 (facts->n_not_checked == 0 || src->nother_contexts == 0);
    if (store) {
        if (facts->n_not_checked > 0) {
            const source_file *parsed = tu == own_tu ? src : &snap->files[unit->index];
            arg_list args = { 0 };
            build_args(&args, snap, parsed, cfg, NULL);
            where_missing(facts, parsed, &args, &included, &absent);
            arg_list_free(&args);
        }
        facts_cache_store(g.facts_dir, cache_key, facts, reach, &included, &absent);
    }
    fact_strs_clear(&included);
    fact_strs_clear(&absent);
    free(cache_key);
    if (own_tu)
        clang_disposeTranslationUnit(own_tu);
    return facts;
}

unsigned long long facts_unit_set(size_t unit)
{
    return g.set_key && unit < g.nset_of ? g.set_key[unit] : 0;
}

size_t facts_unit_set_parent(size_t unit)
{
    return g.chain_of && unit < g.nset_of ? g.chain_of[unit] : SIZE_MAX;
}

bool facts_unit_set_on_base(size_t unit)
{
    return facts_unit_set(unit) != 0 && g.unit_base && g.unit_base[unit] < LANG_COUNT;
}

size_t facts_unit_of(const snapshot *snap, size_t index)
{
    return snap->files[index].context >= 0 ? (size_t)snap->files[index].context : index;
}

void facts_extract_group(const snapshot *snap, const size_t *files, size_t n,
                         const gl_config *cfg, facts_done done, void *arg)
{
    if (n == 0)
        return;
    snapshot_reach *own_reach = g.reach ? NULL : reach_build(snap, cfg);
    const snapshot_reach *reach = g.reach ? g.reach : own_reach;
    shared_unit unit = {.index = facts_unit_of(snap, files[0]), .files = files, .nfiles = n};
    for (unit.at = 0; unit.at < n; unit.at++) {
        size_t of = facts_unit_of(snap, files[unit.at]);
        if (of != unit.index) {
            end_group(snap, &unit, reach);
            unit.index = of;
            unit.tried = false;
            unit.rc = CXError_Success;
        }
        done(files[unit.at], extract_one(snap, files[unit.at], cfg, reach, &unit), arg);
    }
    end_group(snap, &unit, reach);
    other_unit_views_free(&unit);
    reach_free(own_reach);
}

static void keep_facts(size_t file, file_facts *facts, void *arg)
{
    (void)file;
    *(file_facts **)arg = facts;
}

file_facts *facts_extract(const snapshot *snap, size_t index, const gl_config *cfg)
{
    file_facts *facts = NULL;
    facts_extract_group(snap, &index, 1, cfg, keep_facts, &facts);
    return facts;
}
