/* SPDX-License-Identifier: Apache-2.0 */
/* The first line every benchmark prints: machine, CPU model, cores,
 * compiler and the build's flags, so that numbers can be told apart. */
#ifndef TESTS_BENCH_MACHINE_H
#define TESTS_BENCH_MACHINE_H

/* argv0: the benchmark's path, to find <build>/.flags beside it. */
void bench_print_machine(const char *argv0);

#endif
