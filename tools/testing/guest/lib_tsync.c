// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A filter that kills on ioctl(), installed on the whole process by
 * another thread (SECCOMP_FILTER_FLAG_TSYNC) while the main thread is
 * inside the interposed pthread_getattr_np(): glibc's own call never makes
 * an ioctl, so the program must live, on every backend the kernel offers.
 * An interposer that reads /proc/thread-self/status, sees no filter and
 * then asks PROCMAP_QUERY dies when the filter lands between the two.
 *
 * Each try is a child: its main thread calls the interposer in a loop,
 * flagging each call; a second thread waits for a call to be under way
 * (after a number of calls that changes from try to try, so that the
 * filter lands at every point of a call), installs the filter and notes
 * whether the call was still under way once seccomp() returned: such a try
 * met a call with the filter landing inside it. Tries run until MET_WANT
 * of them met a call on each backend (a cap of CAP_TRIES tries or
 * CAP_SECONDS seconds a backend, whichever first, fails the test with
 * the counts), each child killed by SIGSYS a failure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"
#include "libstackinfo.h"
#include "testutil.h"

#define MET_WANT	100
#define CAP_TRIES	20000
#define CAP_SECONDS	120

static t_getattr_fn interposed;
static int in_call;		/* the main thread is inside a call */
static int calls_done;
static int filter_on;		/* the filter is installed */
static unsigned int wait_calls;	/* calls to let pass before aiming */

static void *installer(void *arg)
{
	int *met = arg, err;

	while (__atomic_load_n(&calls_done, __ATOMIC_ACQUIRE) < (int)wait_calls)
		;
	while (!__atomic_load_n(&in_call, __ATOMIC_ACQUIRE))
		;
	err = t_filter(SYS_ioctl, SECCOMP_RET_KILL_PROCESS, SECCOMP_FILTER_FLAG_TSYNC);
	*met = !err && __atomic_load_n(&in_call, __ATOMIC_ACQUIRE);
	__atomic_store_n(&filter_on, err ? -1 : 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The child: exit 0 (the filter landed outside a call), 10 (inside one),
 * 3 for a broken setup; killed by SIGSYS where the interposer met the
 * filter with an ioctl.
 */
static int child(unsigned int seed)
{
	pthread_t th;
	pthread_attr_t a;
	int met = 0, i;

	wait_calls = 2 + seed % 7;	/* the first two: glibc's, then the check */
	if (pthread_create(&th, NULL, installer, &met))
		return 3;
	for (i = 0; !__atomic_load_n(&filter_on, __ATOMIC_ACQUIRE); i++) {
		__atomic_store_n(&in_call, 1, __ATOMIC_RELEASE);
		if (!interposed(pthread_self(), &a))
			pthread_attr_destroy(&a);
		__atomic_store_n(&in_call, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&calls_done, i + 1, __ATOMIC_RELEASE);
	}
	pthread_join(th, NULL);
	if (filter_on < 0)
		return 3;
	/* and the calls after it, under the filter */
	for (i = 0; i < 3; i++)
		if (!interposed(pthread_self(), &a))
			pthread_attr_destroy(&a);
	return met ? 10 : 0;
}

static const int backends[] = {
	STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
	STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS,
};

int main(void)
{
	char preload[PATH_MAX];
	size_t b;
	void *h;
	int err, ran = 0;

	err = t_filters_offered();
	if (err == -EINVAL || err == -ENOSYS) {
		printf("the kernel has no seccomp filters (%s)\n", t_filters_missing(err));
		return 77;
	}
	t_preload_path(preload, sizeof(preload));
	h = dlopen(preload, RTLD_NOW | RTLD_LOCAL);
	interposed = h ? (t_getattr_fn)dlsym(h, "pthread_getattr_np") : NULL;
	if (!interposed) {
		fprintf(stderr, "%s: %s\n", preload, dlerror());
		return 1;
	}
	for (b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		const char *name = stackinfo_backend_name(backends[b]);
		int tries = 0, met = 0, killed = 0, broken = 0;
		double start = t_now(), last = start;

		if (!t_backend_offered(backends[b]))
			continue;
		ran++;
		while (met < MET_WANT && tries < CAP_TRIES && t_now() - start < CAP_SECONDS) {
			int status;
			pid_t pid;

			fflush(NULL);
			pid = fork();
			if (!pid) {
				/* the child's own first choice, as a program's */
				setenv("STACKINFO_BACKEND", name, 1);
				_exit(child((unsigned int)tries));
			}
			if (pid < 0 || waitpid(pid, &status, 0) != pid) {
				broken++;
				break;
			}
			tries++;
			if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
				killed++;
			else if (WIFEXITED(status) && WEXITSTATUS(status) == 10)
				met++;
			else if (!WIFEXITED(status) || WEXITSTATUS(status))
				broken++;
			if (t_now() - last >= 10) {
				printf("info: %s: %d tries, %d met a call, %d killed\n", name, tries,
				       met, killed);
				fflush(stdout);
				last = t_now();
			}
		}
		printf("info: %s: %d tries in %.1f s, %d met a call, %d killed\n", name, tries,
		       t_now() - start, met, killed);
		CHECK(!killed, "%s: the interposer met the filter with an ioctl: %d of %d tries "
		      "killed by SIGSYS", name, killed, tries);
		CHECK(!broken, "%s: %d tries broke (fork, a thread, the filter)", name, broken);
		CHECK(met >= MET_WANT, "%s: %d tries met a call before the cap (%d tries, %d s), "
		      "%d wanted", name, met, CAP_TRIES, CAP_SECONDS, MET_WANT);
	}
	CHECK(ran, "no backend offered");
	return t_result();
}
