/* ualg-bench --engines (bench_engine.c). */
#ifndef UALG_BENCH_ENGINE_H
#define UALG_BENCH_ENGINE_H

/* The engine table and, when iterations is not 0, PBKDF2. */
int bench_engines(double seconds, unsigned long pbkdf2_iterations);

#endif
