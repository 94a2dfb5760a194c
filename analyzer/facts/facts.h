/* What extraction finds in one file: plain data, no libclang types, so rules
 * never touch libclang and a file's facts can be cached by content hash.
 *
 * Every location is in the file the facts belong to (the translation unit's
 * main file), 1-based, at the macro *expansion* site. Type spellings are
 * canonical (typedefs resolved) and normalised so C and C++ agree
 * ("struct s *" and "s *" both read "s *", "_Bool" reads "bool").
 *
 * The kinds of facts and their fields are described once, in
 * facts/fact_kinds.def; their structs below are made from it. */
#ifndef GPULINT_FACTS_H
#define GPULINT_FACTS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct file_facts file_facts;

typedef struct {
    unsigned line, col;
} fact_loc;

typedef struct {
    char **items;
    size_t n;
} fact_strs;

/* Where a function runs, from its CUDA attributes. */
typedef enum {
    EXEC_HOST,          /* no attribute, or __host__ */
    EXEC_HOST_DEVICE,   /* __host__ __device__: host code when called from host */
    EXEC_DEVICE,        /* __device__ only */
    EXEC_KERNEL         /* __global__ */
} fact_exec;

typedef enum {
    LAUNCH_CHEVRON,             /* kernel<<<grid, block>>>(args) */
    LAUNCH_API,                 /* cudaLaunchKernel(fn, grid, block, args, ...) */
    LAUNCH_API_COOPERATIVE,     /* cudaLaunchCooperativeKernel(...) */
    LAUNCH_API_EX,              /* cudaLaunchKernelExC(&config, fn, args) */
    LAUNCH_EX_VARIADIC          /* cudaLaunchKernelEx(&config, kernel, a, b, ...):
                                   arguments converted as by a <<<>>> launch */
} fact_launch_kind;

typedef enum {
    COPY_KIND_RESOLVED,     /* kind_values holds the cudaMemcpyKinds it can take */
    COPY_KIND_UNRESOLVED,   /* a value that cannot be proven (non-const variable,
                               parameter, struct not visible) */
    COPY_ALWAYS_UPLOAD,     /* cudaMemcpyToSymbol*, cuMemcpyHtoD*: no kind needed */
    COPY_BY_POINTERS        /* cudaMemcpyBatchAsync, cuMemcpy: the direction comes
                               from the pointers at run time (as Default) */
} fact_copy_kind;

/* Why a file was not (fully) checked (rules/not_checked.c says how to fix
 * each). */
typedef enum {
    UNCHECKED_MISSING_INCLUDE,   /* an #include that cannot be found: detail
                                    is the header as written */
    UNCHECKED_FATAL,             /* another fatal compiler error: detail is
                                    clang's message */
    UNCHECKED_NO_CUDA,           /* a CUDA file, and no CUDA toolkit where
                                    CUDA_PATH says: detail is that path */
    UNCHECKED_NO_TU,             /* libclang built no translation unit:
                                    detail is libclang's error */
    UNCHECKED_CRASH,             /* libclang crashed parsing it: likewise, or
                                    the signal that ended its worker */
    UNCHECKED_INPUT,             /* its content was not read (over
                                    limits.file-bytes, not a regular file):
                                    detail says which */
    UNCHECKED_INCLUDE_HAZARD,    /* an #include naming a FIFO, a device or
                                    an oversized file: detail says which */
    UNCHECKED_BUDGET,            /* its parse ran past limits.file-seconds:
                                    detail is the budget in seconds */
    UNCHECKED_MACRO_INCLUDE      /* an #include of a macro that names no file
                                    gpulint can tell opened a snapshot file,
                                    which was then not analysed in this
                                    unit: detail is that file's path */
} fact_unchecked_cause;

/* The kinds' structs, from their description: typedef struct fact_function
 * fact_function; struct fact_function { char *name; ... }; and so on. */
#define FACT_KIND(type, array) typedef struct type type; struct type {
#define FACT_FIELD(ctype, codec, name, key) ctype name;
#define FACT_KIND_END };
#include "facts/fact_kinds.def"

/* Everything found in one file: each kind's array and its count
 * (fact_function *functions; size_t n_functions; ...). */
struct file_facts {
#define FACT_KIND(type, array) type *array; size_t n_##array;
#include "facts/fact_kinds.def"
};

void facts_free(file_facts *facts);

/* Frees what one fact of each kind owns, not the fact itself
 * (fact_free_functions(fact_function *), ...). */
#define FACT_KIND(type, array) void fact_free_##array(type *x);
#include "facts/fact_kinds.def"

/* Moves into `into` each fact of `from` that `into` does not have (equal in
 * every field), frees the rest and `from` (facts/merge.c). */
void facts_merge(file_facts *into, file_facts *from);

/* Facts of a file that was not checked: one not-checked fact at 1:1 of this
 * cause, with `detail` (taken). */
file_facts *facts_not_checked(fact_unchecked_cause cause, char *detail);

/* Facts as text (JSON, malloc'd) and back; facts_load returns NULL with
 * *error set for text that is not facts of this gpulint's format. Extraction
 * caches facts on disk through these (extract/cache.c). */
char *facts_save(const file_facts *facts);
file_facts *facts_load(const char *text, char **error);

#endif
