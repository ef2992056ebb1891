/* ualg-bench's report: algd's memory with many sockets open, the table,
 * the JSON rows and the gnuplot chart. */
#include "bench_paths.h"
#include "proto.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t algd_pid(void)
{
	char path[PATH_MAX];
	struct ucred cred = { 0 };
	socklen_t len = sizeof(cred);
	int fd = ualg_default_socket_path(path, sizeof(path)) ? -1 : ualg_connect(path, NULL, 0);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		cred.pid = 0;
	if (fd >= 0)
		close(fd);
	return cred.pid;
}

static long rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}


void measure_memory(const struct alg_spec *alg, int n, struct memory *m)
{
	struct runner r = { .alg = alg, .len = 64 };
	pid_t pid = algd_pid();
	int *fds = calloc((size_t)n, sizeof(int));

	m->idle_kib = m->with_sockets_kib = -1;
	m->sockets = 0;
	if (!pid || !fds || shim_setup(&r, false)) {
		free(fds);
		return;
	}
	m->idle_kib = rss_kib(pid);
	for (; m->sockets < n; m->sockets++) {
		fds[m->sockets] = accept(r.tfmfd, NULL, NULL);
		if (fds[m->sockets] < 0 || send(fds[m->sockets], r.in, 64, MSG_MORE) != 64)
			break;
	}
	m->with_sockets_kib = rss_kib(pid);
	for (int i = 0; i < m->sockets; i++)
		close(fds[i]);
	if (m->sockets < n && fds[m->sockets] >= 0)
		close(fds[m->sockets]);
	free(fds);
	shim_done(&r);
}

/* ---- output ---------------------------------------------------------- */

void size_name(size_t len, char *buf, size_t n)
{
	if (len >= (1u << 20))
		snprintf(buf, n, "%zu MiB", len >> 20);
	else if (len >= 1024)
		snprintf(buf, n, "%zu KiB", len >> 10);
	else
		snprintf(buf, n, "%zu B", len);
}

void print_row(const struct alg_spec *a, size_t len, enum path p, const struct result *res)
{
	print_named_row(a, len, path_names[p], res);
}

void print_named_row(const struct alg_spec *a, size_t len, const char *path, const struct result *res)
{
	char sz[32];

	size_name(len, sz, sizeof(sz));
	if (res->err) {
		printf("%-26s %7s %-13s  n/a (%s)\n", alg_label(a), sz, path, strerror(-res->err));
		return;
	}
	printf("%-26s %7s %-13s %9.1f %11.0f %9.1f %9.1f %6.0f%%%s\n", alg_label(a), sz, path,
	       res->mbps, res->ops, res->p50_us, res->p99_us, res->ratio * 100,
	       res->mismatch ? "  MISMATCH" : "");
}

void print_json_row(FILE *f, bool first, const struct alg_spec *a, size_t len, enum path p,
			   const struct result *res)
{
	fprintf(f, "%s\n  {\"alg\": \"%s\", \"size\": %zu, \"path\": \"%s\", ", first ? "" : ",",
		alg_label(a), len, path_names[p]);
	if (res->err)
		fprintf(f, "\"error\": \"%s\"}", strerror(-res->err));
	else
		fprintf(f, "\"mb_per_s\": %.2f, \"ops_per_s\": %.1f, \"p50_us\": %.2f, \"p99_us\": %.2f, "
			"\"ratio\": %.4f, \"output_matches\": %s}",
			res->mbps, res->ops, res->p50_us, res->p99_us, res->ratio,
			res->mismatch ? "false" : "true");
}

int plot(const char *png, const struct result *res, size_t nalgs, const struct alg_spec *const *algs,
	 size_t nsizes, const size_t *sizes)
{
	/* A gnuplot that is missing or fails leaves the pipe early: its
	 * writes must not kill this process. */
	void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
	FILE *g = popen("gnuplot 2>/dev/null", "w");
	if (!g) {
		fprintf(stderr, "ualg-bench: cannot run gnuplot: %s, no plot\n", strerror(errno));
		signal(SIGPIPE, old_pipe);
		return -1;
	}
	fprintf(g, "set terminal png size 1400,%zu\nset output '%s'\nset multiplot layout %zu,1\n"
		"set style data histograms\nset style fill solid\nset ylabel 'MB/s'\nset logscale y\n",
		360 * nsizes, png, nsizes);
	for (size_t s = 0; s < nsizes; s++) {
		char sz[32];
		size_name(sizes[s], sz, sizeof(sz));
		fprintf(g, "set title '%s'\nplot", sz);
		for (int p = 0; p < P_COUNT; p++)
			fprintf(g, "%s '-' using 2:xtic(1) title '%s'", p ? "," : "", path_names[p]);
		fputc('\n', g);
		for (int p = 0; p < P_COUNT; p++) {
			for (size_t a = 0; a < nalgs; a++) {
				const struct result *x = &res[(a * nsizes + s) * P_COUNT + (size_t)p];
				fprintf(g, "'%s' %f\n", alg_label(algs[a]), x->err ? 0.001 : x->mbps);
			}
			fputs("e\n", g);
		}
	}
	fputs("unset multiplot\n", g);
	const int st = pclose(g);
	signal(SIGPIPE, old_pipe);
	if (st == 0)
		return 0;
	/* The shell's 127: no gnuplot on the PATH. */
	if (st > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
		fprintf(stderr, "ualg-bench: no gnuplot (Debian: apt-get install gnuplot-nox), no plot\n");
	else
		fprintf(stderr, "ualg-bench: gnuplot failed, no plot\n");
	return -1;
}
