// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * startup-time [--maps N] [--rounds R] [--preload PATH] [-- CMD [ARG]...]
 *
 * The start-up of a program that asks pthread_getattr_np() once about its
 * main thread, with and without LD_PRELOAD=PATH: R rounds, each running
 * the program (this file, exec'd as "startup-time --child N": N single-page
 * mappings, then the call) once plain and once interposed, the order
 * alternating. Prints the medians of the whole run (fork, exec, mappings,
 * call, exit) and of the call alone, and the median of the rounds' ratios
 * interposed / plain. With a command after --, that command is the
 * program instead (its output is read and dropped, but for a number it
 * prints first, whose medians are given too). Both runs have environments of the same size. Under TCG only
 * ratios of one run mean anything.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int child(long maps)
{
	long page = sysconf(_SC_PAGESIZE), i;
	pthread_attr_t attr;
	double t0, t1;
	char *base;

	if (maps) {
		base = mmap(NULL, maps * page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED)
			return 1;
		for (i = 1; i < maps; i += 2)
			mprotect(base + i * page, page, PROT_READ);
	}
	t0 = now_us();
	if (pthread_getattr_np(pthread_self(), &attr))
		return 1;
	t1 = now_us();
	pthread_attr_destroy(&attr);
	printf("%.1f\n", t1 - t0);
	return 0;
}

/* Run the child once (@cmd, or this program); its whole time and its call's. */
static int run(const char *self, char **cmd, const char *preload_env, long maps,
	       double *whole, double *call)
{
	char arg[32], out[64] = "", *env[64], sink[4096];
	int p[2], status, n = 0;
	size_t len = 0;
	ssize_t got;
	double t0;
	pid_t pid;
	char **e;

	snprintf(arg, sizeof(arg), "%ld", maps);
	env[n++] = (char *)preload_env;
	for (e = environ; *e && n < 62; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11))
			env[n++] = *e;
	env[n] = NULL;
	if (pipe(p))
		return -1;
	t0 = now_us();
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (cmd)
			execvpe(cmd[0], cmd, env);
		else
			execle(self, self, "--child", arg, (char *)NULL, env);
		_exit(127);
	}
	close(p[1]);
	/* all of it: a writer must not see the pipe closed */
	while ((got = read(p[0], len < sizeof(out) - 1 ? out + len : sink,
			   len < sizeof(out) - 1 ? sizeof(out) - 1 - len : sizeof(sink))) > 0)
		if (len < sizeof(out) - 1)
			len += got;
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    (!cmd && (WEXITSTATUS(status) || !len)))
		return -1;
	*whole = now_us() - t0;
	*call = strtod(out, NULL);	/* 0 for a command that prints no number */
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	const char *preload = "/usr/lib/libstackinfo-preload.so";
	long maps = 0, rounds = 7, r;
	char with[256], without[256], self[4096], **cmd = NULL;
	double *w[2], *c[2], *rw, *rc;
	ssize_t n;
	int a, k;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child(atol(argv[2]));
	for (a = 1; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--maps"))
			maps = atol(argv[a + 1]);
		else if (!strcmp(argv[a], "--rounds"))
			rounds = atol(argv[a + 1]);
		else if (!strcmp(argv[a], "--preload"))
			preload = argv[a + 1];
		else
			break;
	}
	if (a < argc && !strcmp(argv[a], "--") && a + 1 < argc)
		cmd = argv + a + 1;
	else if (a < argc)
		rounds = 0;
	if (rounds < 1) {
		fprintf(stderr, "usage: startup-time [--maps N] [--rounds R] [--preload PATH] [-- CMD [ARG]...]\n");
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	/* the same length: the same stack layout */
	snprintf(with, sizeof(with), "LD_PRELOAD=%s", preload);
	snprintf(without, sizeof(without), "LD_PRELOAX=%s", preload);
	for (k = 0; k < 2; k++) {
		w[k] = calloc(rounds, sizeof(double));
		c[k] = calloc(rounds, sizeof(double));
	}
	rw = calloc(rounds, sizeof(double));
	rc = calloc(rounds, sizeof(double));
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 2; k++) {
			int side = (r + k) % 2;	/* 0 plain, 1 interposed */

			if (run(self, cmd, side ? with : without, maps, &w[side][r],
				&c[side][r])) {
				fprintf(stderr, "startup-time: the %s run failed\n",
					side ? "interposed" : "plain");
				return 1;
			}
		}
		rw[r] = w[1][r] / w[0][r];
		rc[r] = c[0][r] > 0 ? c[1][r] / c[0][r] : 0;
	}
	if (cmd) {
		printf("%s: rounds %ld: whole run plain %.0f us, interposed %.0f us, ratio %.3f",
		       cmd[0], rounds, median(w[0], rounds), median(w[1], rounds),
		       median(rw, rounds));
		/* a command that prints a number (guile-embed --time): its medians */
		if (median(rc, rounds) > 0)
			printf("; printed plain %.2f, interposed %.2f, ratio %.3f",
			       median(c[0], rounds), median(c[1], rounds), median(rc, rounds));
		printf("\n");
		return 0;
	}
	printf("maps %ld rounds %ld: whole run plain %.0f us, interposed %.0f us, ratio %.3f;"
	       " the call plain %.1f us, interposed %.1f us, ratio %.3f\n",
	       maps, rounds, median(w[0], rounds), median(w[1], rounds), median(rw, rounds),
	       median(c[0], rounds), median(c[1], rounds), median(rc, rounds));
	return 0;
}
