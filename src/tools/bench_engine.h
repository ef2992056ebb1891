/* ualg-bench --engines (bench_engine.c). */
#ifndef UALG_BENCH_ENGINE_H
#define UALG_BENCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

/* The engine table and, when iterations is not 0, PBKDF2. */
int bench_engines(double seconds, unsigned long pbkdf2_iterations);

/* One AF_ALG operation from socket() to close(), as a one-shot program
 * makes it (the key and IV of the engine table): 0 or -errno. */
int bench_oneshot(const char *type, const char *name, size_t len, size_t keylen, size_t ivlen,
		  uint8_t *out, size_t outlen);

/* The first operation in a fresh process (bench_cold.c): this program
 * run again as "--cold-child", once with OpenSSL and once over AF_ALG. */
void bench_cold(const char *self);
int bench_cold_child(const char *mode);

#endif
