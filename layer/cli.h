/* Entry points of the `tlob` tool's subcommands that live in their own files. */
#ifndef TLOB_CLI_H
#define TLOB_CLI_H

/* `tlob bench [--json] [--iters N]`; argv[0] is "bench". Returns the exit code. */
int tlob_bench_main(int argc, char **argv);

#endif /* TLOB_CLI_H */
