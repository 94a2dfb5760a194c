/* Loading libclang (extract/libclang_api.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "extract/libclang_api.h"
#include "util/exit_codes.h"

libclang_table libclang;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;

const char *libclang_path(void)
{
    return LIBCLANG_PATH;
}

static void load(void)
{
    void *lib = dlopen(LIBCLANG_PATH, RTLD_NOW | RTLD_GLOBAL);
    const char *missing = NULL;
    if (lib) {
#define LIBCLANG_BIND(name)                                                    \
        libclang.bound_##name = (__typeof__(libclang.bound_##name))dlsym(lib, #name); \
        if (!libclang.bound_##name && !missing)                                    \
            missing = #name;
        LIBCLANG_FUNCTIONS(LIBCLANG_BIND)
#undef LIBCLANG_BIND
    }
    if (!lib || missing) {
        fprintf(stderr, "gpulint: error: cannot load libclang from %s: %s%s (install libclang "
                        "19, or rebuild gpulint with LLVM_DIR naming where it is)\n",
                LIBCLANG_PATH, lib ? "it has no " : "", lib ? missing : dlerror());
        exit(EXIT_INTERNAL);
    }
}

void libclang_require(void)
{
    pthread_once(&loaded, load);
}
