// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The interposer in a sandboxed process: a seccomp filter that kills, or
 * fails with an errno, on ioctl() or on openat(), installed before the
 * first call or after the interposer has answered. The interposed
 * pthread_getattr_np() must share glibc's own fate in each: the same
 * answers, the same errors, killed where glibc's call is killed and only
 * there (glibc's call makes openat, read, close, prlimit64 and
 * sched_getaffinity, never ioctl). For each backend the kernel offers, a
 * child calls glibc's function and another the interposer's (dlopen()ed,
 * its backend set by STACKINFO_BACKEND), three times after the filter;
 * their exit and their answers are compared.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"
#include "libstackinfo.h"
#include "testutil.h"

#define CALLS	3

struct filter {
	const char *what;
	int nr;
	unsigned int action;
};

static const struct filter filters[] = {
	{ "ioctl killed", SYS_ioctl, SECCOMP_RET_KILL_PROCESS },
	{ "ioctl EPERM", SYS_ioctl, SECCOMP_RET_ERRNO | EPERM },
	{ "openat killed", SYS_openat, SECCOMP_RET_KILL_PROCESS },
	{ "openat EACCES", SYS_openat, SECCOMP_RET_ERRNO | EACCES },
};

static const int backends[] = {
	STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
	STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS,
};

struct answer {
	int ret;
	struct t_attrs a;
};

static int install(const struct filter *f)
{
	return t_filter(f->nr, f->action, 0);
}

/*
 * In a child: @calls_before calls of @fn, the filter, CALLS calls, each
 * answer written to @out. Its wait status; the answers in @ans, their
 * number in *@n.
 */
static int run(t_getattr_fn fn, const char *backend, const struct filter *f, int calls_before,
	       struct answer *ans, int *n)
{
	int p[2], status = -1, i;
	ssize_t got;
	pid_t pid;

	*n = 0;
	if (pipe(p))
		return -1;
	fflush(NULL);
	pid = fork();
	if (!pid) {
		close(p[0]);
		setenv("STACKINFO_BACKEND", backend, 1);
		for (i = 0; i < calls_before + CALLS; i++) {
			struct answer a;

			if (i == calls_before && install(f))
				_exit(3);
			memset(&a, 0, sizeof(a));
			a.ret = t_getattr(fn, pthread_self(), &a.a);
			if (write(p[1], &a, sizeof(a)) != sizeof(a))
				_exit(4);
		}
		_exit(0);
	}
	close(p[1]);
	while (pid > 0 && *n < calls_before + CALLS &&
	       (got = read(p[0], &ans[*n], sizeof(*ans))) == sizeof(*ans))
		(*n)++;
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static const char *fate(int status, char *buf, size_t size)
{
	if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, size, "exit %d", WEXITSTATUS(status));
	return buf;
}

int main(void)
{
	t_getattr_fn glibc = t_glibc_getattr(), interposed;
	struct answer ga[2 * CALLS], ia[2 * CALLS];
	char why[400], gf[40], inf[40], preload[PATH_MAX];
	int gs, is, gn, in, killed = 0, ran = 0, err;
	size_t b, f, k;
	void *h;

	err = t_filters_offered();
	if (err == -EINVAL || err == -ENOSYS) {
		printf("the kernel has no seccomp filters (%s)\n", t_filters_missing(err));
		return 77;
	}
	CHECK(!err, "a filter that allows everything: %s", strerror(-err));
	t_preload_path(preload, sizeof(preload));
	h = dlopen(preload, RTLD_NOW | RTLD_LOCAL);
	interposed = h ? (t_getattr_fn)dlsym(h, "pthread_getattr_np") : NULL;
	if (!glibc || !interposed) {
		fprintf(stderr, "glibc's pthread_getattr_np or %s: %s\n", preload, dlerror());
		return 1;
	}
	for (b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		const char *name = stackinfo_backend_name(backends[b]);

		if (stackinfo_set_backend(backends[b])) {
			CHECK(!t_backend_offered(backends[b]), "%s: refused, though the kernel offers it", name);
			printf("info: %s: not offered here\n", name);
			continue;
		}
		ran++;
		for (f = 0; f < sizeof(filters) / sizeof(filters[0]); f++) {
			for (k = 0; k <= CALLS; k += CALLS) {
				const char *when = k ? "after three calls" : "before the first call";
				int i;

				gs = run(glibc, name, &filters[f], k, ga, &gn);
				is = run(interposed, name, &filters[f], k, ia, &in);
				CHECK(gs != -1 && is != -1, "%s, %s, %s: fork or wait", name,
				      filters[f].what, when);
				CHECK(gs == is, "%s, %s %s: glibc's call: %s, the interposer: %s", name,
				      filters[f].what, when, fate(gs, gf, sizeof(gf)),
				      fate(is, inf, sizeof(inf)));
				CHECK(gn == in, "%s, %s %s: %d answers from glibc, %d from the interposer",
				      name, filters[f].what, when, gn, in);
				for (i = 0; i < gn && i < in; i++)
					CHECK(ga[i].ret == ia[i].ret &&
					      (ga[i].ret || t_attrs_same(&ia[i].a, &ga[i].a, why,
									 sizeof(why))),
					      "%s, %s %s, call %d: interposer %d, glibc %d %s", name,
					      filters[f].what, when, i + 1, ia[i].ret, ga[i].ret,
					      ga[i].ret == ia[i].ret ? why : "");
				killed += WIFSIGNALED(gs);
			}
		}
		printf("info: %s: %zu filters, before and after the first call\n", name, f);
	}
	/* openat killed: glibc's own call dies, twice a backend */
	CHECK(killed == 2 * ran, "glibc's call killed %d times, %d expected", killed, 2 * ran);
	CHECK(ran >= 1, "no backend ran");
	return t_result();
}
