/* A call of a function-like macro, read and expanded from text as the
 * preprocessor does for an #include's operand (`#define STRINGIFY(x) #x`,
 * `#define HEADER_OF(name) STRINGIFY(name.h)`, `#include HEADER_OF(table)`):
 * input/include_names.c follows what the expansion names. */
#ifndef GPULINT_MACRO_CALL_H
#define GPULINT_MACRO_CALL_H

#include <stdbool.h>
#include <stddef.h>

/* The parameters of a definition whose text after the macro's name is
 * [p, end): "(a, b) body". false for no parameter list, a parameter that
 * is not an identifier, or __VA_OPT__ in a macro that is not variadic.
 * *params (malloc'd
 * strings), *variadic and *body (the body without the comments that end
 * the line, trimmed, malloc'd) when true. A variadic macro's last
 * parameter takes the arguments past the others: `...` is __VA_ARGS__,
 * GNU's `rest...` is rest. */
bool macro_call_params(const char *p, const char *end, char ***params, size_t *nparams,
                       bool *variadic, char **body);

/* The arguments of a call whose '(' is at p, up to its ')' before end, each
 * trimmed (malloc'd); *after is past the ')'. NULL when the parentheses do
 * not close on the line. */
char **macro_call_args(const char *p, const char *end, size_t *nargs, const char **after);

/* body with each parameter replaced by its argument, `#param` by the
 * argument as a string literal, and `a ## b` pasted (malloc'd). An operand
 * of `#` or `##` is the argument as written (args); any other use of a
 * parameter is its argument macro-expanded (expanded, as the caller
 * expanded it: input/include_names.c; NULL: as written). A variadic
 * macro's last parameter is the arguments from its position on, joined
 * with ", " (none: empty), and its `__VA_OPT__(tokens)` (C++20) is those
 * tokens, substituted, when it has any, else nothing. NULL when the
 * argument count does not fit the parameters, or `#` is not before a
 * parameter (`#__VA_OPT__(...)` included). */
char *macro_call_expand(char *const *params, size_t nparams, bool variadic, const char *body,
                        char *const *args, char *const *expanded, size_t nargs);

/* Past the string or character literal whose opening quote is at p (its
 * escapes skipped): after its closing quote, or at the text's end when it
 * does not close. Shared with input/include_names.c, which copies
 * literals whole too. */
const char *macro_literal_end(const char *p);

#endif
