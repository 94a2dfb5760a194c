/* Entry points of the `tlob` tool's subcommands that live in their own files. */
#ifndef TLOB_CLI_H
#define TLOB_CLI_H

#include <getopt.h>
#include <stddef.h>

/* What is wrong with the option getopt_long (opterr 0, optstring starting
 * with ':') just answered c ('?' or ':') for, naming the offending word, into
 * out: shared by every subcommand's parser. */
void tlob_option_problem(int c, char **argv, const struct option *longopts, char *out,
                         size_t size);

/* `tlob bench [--json] [--iters N]`; argv[0] is "bench". Returns the exit code. */
int tlob_bench_main(int argc, char **argv);

#endif /* TLOB_CLI_H */
