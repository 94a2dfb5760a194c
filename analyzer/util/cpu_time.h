/* CPU time of the calling thread, for GPULINT_TRACE's figures. A worker
 * parses on a thread of its own and builds a set on the thread of the parse
 * that needs it (extract/contain.c, LIBCLANG_NOTHREADS), so a parse line can
 * take its set's build out of its own figure only when both read this one
 * clock (extract/extract.c parse_unit, extract/preamble.c obtain). */
#ifndef GPULINT_CPU_TIME_H
#define GPULINT_CPU_TIME_H

double thread_cpu_seconds(void);

#endif
