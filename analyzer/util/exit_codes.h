/* gpulint's exit status: the CLI contract of docs/gpulint.md ("Exit status").
 * In util/ because every stage that decides or records one names them:
 * input/inputs.c, the pipeline, report/sarif.c and main.c. */
#ifndef GPULINT_EXIT_CODES_H
#define GPULINT_EXIT_CODES_H

enum {
    EXIT_CLEAN = 0,      /* no reported finding of error severity */
    EXIT_FINDINGS = 1,   /* some reported finding is an error */
    EXIT_USAGE = 2,      /* bad command line, config, compile database or baseline */
    EXIT_INTERNAL = 3,   /* an internal error, or a file libclang could not parse */
};

#endif
