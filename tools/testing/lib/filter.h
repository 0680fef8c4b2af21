/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Seccomp filters for the library's sandbox tests (lib_seccomp, lib_tsync,
 * lib_syscalls), and where they find the interposer.
 */
#ifndef STACKINFO_TEST_FILTER_H
#define STACKINFO_TEST_FILTER_H

#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define T_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define T_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#endif

/*
 * A filter on the calling thread (with @flags, e.g.
 * SECCOMP_FILTER_FLAG_TSYNC: on every thread of its process) that answers
 * system call @nr with @action and allows everything else (@nr -1:
 * everything); no_new_privs set first. 0 or -errno.
 */
static inline int t_filter(int nr, unsigned int action, unsigned int flags)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, T_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog) ? -errno : 0;
}

/*
 * Can this kernel install a filter? Not without CONFIG_SECCOMP_FILTER
 * (debug-5.10, built without CONFIG_NET): EINVAL; nor without
 * CONFIG_SECCOMP (debug-6.12-arm64, no in-tree fragment), where seccomp()
 * is sys_ni_syscall(): ENOSYS. Asked in a child: 0 or -errno.
 */
static inline int t_filters_offered(void)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(-t_filter(-1, SECCOMP_RET_ALLOW, 0));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

/* "CONFIG_SECCOMP" or "CONFIG_SECCOMP_FILTER" for t_filters_offered()'s refusal */
static inline const char *t_filters_missing(int err)
{
	return err == -ENOSYS ? "CONFIG_SECCOMP" : "CONFIG_SECCOMP_FILTER";
}

/*
 * The interposer beside the library the test runs on: /usr/lib in the
 * guest, build/lib for a test of build/guest/tests run on the host.
 */
static inline void t_preload_path(char *out, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (!access("/usr/lib/libstackinfo-preload.so", R_OK) || n <= 0) {
		snprintf(out, size, "/usr/lib/libstackinfo-preload.so");
		return;
	}
	exe[n] = '\0';
	snprintf(out, size, "%s/../../lib/libstackinfo-preload.so", dirname(exe));
}

#endif
