/* What extraction finds in one file: plain data, no libclang types, so rules
 * never touch libclang and a file's facts can be cached by content hash.
 *
 * Every location is in the file the facts belong to (the translation unit's
 * main file), 1-based, at the macro *expansion* site. Type spellings are
 * canonical (typedefs resolved) and normalised so C and C++ agree
 * ("struct s *" and "s *" both read "s *", "_Bool" reads "bool"). */
#ifndef GPULINT_FACTS_H
#define GPULINT_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "extract/extract.h"

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

/* A function declaration or definition written in this file. */
typedef struct {
    char *name;             /* qualified (ns::f), except for C linkage: the
                               symbol is the bare name whatever the namespace */
    char *usr;              /* clang's unified symbol resolution: same across TUs */
    fact_strs params;       /* parameter types, as in the function's type
                               (top-level qualifiers dropped) */
    /* A template's own type parameters: how its types spell each one
     * (type-parameter-0-1) and the name the source gives it (T), in
     * parallel, so that messages can say `const T *`. */
    fact_strs type_param_spellings;
    fact_strs type_param_names;
    char *result;           /* return type */
    fact_loc loc;           /* the name */
    fact_exec exec;
    bool is_definition;
    bool is_static;         /* internal linkage: matches within its file only */
    bool is_template;       /* parameter types may be dependent */
    bool no_prototype;      /* C `f()`: parameters unknown, nothing to compare */
    bool is_c_linkage;      /* extern "C", or any function of a C file */
    bool is_hot_annotated;  /* __attribute__((annotate("gpulint:hot"))) */
} fact_function;

typedef enum {
    LAUNCH_CHEVRON,             /* kernel<<<grid, block>>>(args) */
    LAUNCH_API,                 /* cudaLaunchKernel(fn, grid, block, args, ...) */
    LAUNCH_API_COOPERATIVE,     /* cudaLaunchCooperativeKernel(...) */
    LAUNCH_API_EX,              /* cudaLaunchKernelExC(&config, fn, args) */
    LAUNCH_EX_VARIADIC          /* cudaLaunchKernelEx(&config, kernel, a, b, ...):
                                   arguments converted as by a <<<>>> launch */
} fact_launch_kind;

typedef struct {
    fact_launch_kind kind;
    char *kernel_name;      /* qualified, like fact_function.name */
    char *kernel_usr;
    fact_loc loc;
    /* Chevron and variadic Ex: the argument types before implicit conversion
     * (a swapped float and int still compile); API: the types of x in each
     * `&x` of the `void *args[]` initialiser. */
    fact_strs arg_types;
    /* Chevron: bit i set when argument i is an arithmetic compile-time
     * constant (NULL, 0, 2, 0.5f): it converts to the parameter by intent. */
    unsigned long long constant_args;
    bool args_known;        /* API: the args array was found and every entry
                               is `&x`; otherwise only the kernel is known */
} fact_launch;

typedef enum {
    COPY_KIND_RESOLVED,     /* kind_value holds the cudaMemcpyKind */
    COPY_KIND_UNRESOLVED,   /* a value that cannot be proven (non-const variable,
                               parameter, struct not visible) */
    COPY_ALWAYS_UPLOAD      /* cudaMemcpyToSymbol*, cuMemcpyHtoD*: no kind needed */
} fact_copy_kind;

typedef struct {
    char *callee;
    fact_loc loc;
    fact_copy_kind kind;
    long kind_value;
} fact_copy;

/* caller -> callee, from a function defined in this file. */
typedef struct {
    char *caller_usr;
    char *callee_usr;
    char *callee_name;
    fact_loc loc;           /* the call */
    /* The callee is a template specialisation (reduce<float>): bit i when
     * its template argument i is a floating-point type. Its arithmetic on
     * template parameter i (fact_float_loop.template_params) is floating
     * here. */
    unsigned long long floating_template_args;
    /* The callee is a member of a class template specialisation
     * (Blend<float>::mix_rows): the same for the innermost such class's
     * arguments, which fact_float_loop.class_params follow. */
    unsigned long long floating_class_args;
} fact_call;

/* Arithmetic inside a loop: on a floating-point type (the function's first
 * such site), or in a template on template parameters' types, floating only
 * in the instantiations where one of those is (the first site per
 * parameter). Floating when template_params and class_params are both 0. */
typedef struct {
    char *function_usr;
    fact_loc loc;
    /* Bit i: an operand's type is (or is made of, as complex<T>) the
     * function template's own parameter i, its index in the template's
     * parameter list; every bit where that is not known (a parameter of an
     * outer class template, of a partial specialisation, of a generic
     * lambda). */
    unsigned long long template_params;
    /* Bit i: the same for parameter i of the innermost class template the
     * function is a member of (T of Blend<T>::mix_rows). */
    unsigned long long class_params;
    /* A library template whose loop it is (std::accumulate over floats),
     * called at loc; NULL for arithmetic written in the function itself. */
    char *via;
} fact_float_loop;

/* A `@param name` that names no parameter of the documented function. */
typedef struct {
    char *function_name;
    char *param_name;
    fact_loc loc;           /* the @param command when found in the text,
                               else the function */
} fact_doc_param;

/* A CUDA runtime/driver/cuBLAS status dropped by an expression statement. */
typedef struct {
    char *callee;
    fact_loc loc;
} fact_unchecked;

/* A function declared or referenced where the source text does not spell
 * its name (a macro pasted or substituted it): the token scan of the masked
 * text cannot see these. */
typedef struct {
    char *name;
    fact_loc loc;           /* the macro expansion */
} fact_hidden_name;

/* A compiler error in this file (also reported as parse-error when found). */
typedef struct {
    char *message;
    fact_loc loc;
} fact_parse_error;

#define FACT_ARRAY(type, field) type *field; size_t n_##field

struct file_facts {
    FACT_ARRAY(fact_function, functions);
    FACT_ARRAY(fact_launch, launches);
    FACT_ARRAY(fact_copy, copies);
    FACT_ARRAY(fact_call, calls);
    FACT_ARRAY(fact_float_loop, float_loops);
    FACT_ARRAY(fact_doc_param, doc_params);
    FACT_ARRAY(fact_unchecked, unchecked);
    FACT_ARRAY(fact_hidden_name, hidden_names);
    FACT_ARRAY(fact_parse_error, parse_errors);
};

#undef FACT_ARRAY

#endif
