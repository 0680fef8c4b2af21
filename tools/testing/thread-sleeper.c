// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * thread-sleeper N [DUMPABLE]: start N threads that sleep, print
 * "ready PID", and sleep until killed (or 10 minutes). With DUMPABLE 0 the
 * process makes itself non-dumpable first. A target for the CLI and
 * harness tests.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	sleep(600);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, i;
	pthread_t th;

	if (argc > 2 && !atoi(argv[2]))
		prctl(PR_SET_DUMPABLE, 0);
	for (i = 0; i < n; i++)
		if (pthread_create(&th, NULL, sleeper, NULL)) {
			perror("pthread_create");
			return 1;
		}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sleep(600);
	return 0;
}
