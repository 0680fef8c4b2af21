// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo: thread stacks for people, debuggers and tracers.
 *
 *   stackinfo                 this process (its own thread)
 *   stackinfo -p PID          every thread of PID
 *   stackinfo -t TID          one thread
 *   --json                    JSON instead of the table
 *   --backend NAME            proc, module, procmap_query or maps
 *   --addr ADDR               where ADDR is for each thread shown
 *
 * Exit: 0 answered; 1 no such process or thread; 2 bad usage; 3 permission
 * denied; 4 any other failure. See stackinfo(1).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libstackinfo.h"

enum { EXIT_NOSUCH = 1, EXIT_USAGE = 2, EXIT_PERM = 3, EXIT_OTHER = 4 };

static bool json;
static int n_out;
static bool told_fallback;
static bool classify;
static uint64_t addr;

static void usage(FILE *f)
{
	fprintf(f, "usage: stackinfo [-p PID] [-t TID] [--json] [--backend NAME]\n"
		   "  no option: this process's own thread\n"
		   "  -p, --pid PID      every thread of PID\n"
		   "  -t, --tid TID      one thread (with -p: a thread of PID)\n"
		   "  -j, --json         JSON output\n"
		   "  -b, --backend NAME proc, module, procmap_query or maps\n"
		   "  -a, --addr ADDR    where ADDR (hex) is for each thread: its stack,\n"
		   "                     a guard, growth room, the guard gap, beyond the\n"
		   "                     limit, its sigaltstack, another mapping, unmapped\n"
		   "  -V, --version\n");
}

static int exit_code(int err)
{
	switch (err) {
	case -ESRCH:
	case -ENOENT:
		return EXIT_NOSUCH;
	case -EACCES:
	case -EPERM:
		return EXIT_PERM;
	default:
		return EXIT_OTHER;
	}
}

static void human(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = "KMGTPE";
	double v = bytes;
	int u = -1;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, size, v < 10 && v != (int)v ? "%.1f%c" : "%.0f%c",
			 v, units[u]);
}

static void perms(uint64_t flags, char out[5])
{
	out[0] = flags & STACKINFO_VMA_READ ? 'r' : '-';
	out[1] = flags & STACKINFO_VMA_WRITE ? 'w' : '-';
	out[2] = flags & STACKINFO_VMA_EXEC ? 'x' : '-';
	out[3] = flags & STACKINFO_VMA_SHARED ? 's' : 'p';
	out[4] = '\0';
}

/* The thread's stack: the VMA holding its SP, else the main stack's. */
static bool stack_of(const struct stackinfo_query *q, uint64_t *start,
		     uint64_t *end, uint64_t *flags)
{
	if (q->valid & STACKINFO_VALID_SP_VMA) {
		*start = q->sp_vma_start;
		*end = q->sp_vma_end;
		*flags = q->sp_vma_flags;
		return true;
	}
	if ((q->thread_flags & STACKINFO_THREAD_MAIN) &&
	    (q->valid & STACKINFO_VALID_MAIN_VMA)) {
		*start = q->main_vma_start;
		*end = q->main_vma_end;
		*flags = q->main_vma_flags;
		return true;
	}
	return false;
}

/* The sigaltstack as the ALTSTACK column shows it. */
static void altstack_cell(const struct stackinfo_query *q, char *buf, size_t size)
{
	if (!(q->valid & STACKINFO_VALID_ALTSTACK))
		snprintf(buf, size, "-");
	else if (q->ss_flags & SS_DISABLE)
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%llx-%llx%s", (unsigned long long)q->ss_sp,
			 (unsigned long long)(q->ss_sp + q->ss_size),
			 (q->ss_flags & SS_ONSTACK) ? "*" : "");
}

static const char *const kind_names[] = {
	[STACKINFO_STACK_UNKNOWN] = "unknown",
	[STACKINFO_STACK_MAIN] = "main",
	[STACKINFO_STACK_THREAD] = "thread",
	[STACKINFO_STACK_ALTSTACK] = "altstack",
};

static const char *const class_names[] = {
	[STACKINFO_ADDR_STACK] = "stack",
	[STACKINFO_ADDR_GUARD] = "guard",
	[STACKINFO_ADDR_GROWTH] = "growth",
	[STACKINFO_ADDR_GUARD_GAP] = "guard-gap",
	[STACKINFO_ADDR_BEYOND_LIMIT] = "beyond-limit",
	[STACKINFO_ADDR_ALTSTACK] = "altstack",
	[STACKINFO_ADDR_MAPPED] = "mapped",
	[STACKINFO_ADDR_UNMAPPED] = "unmapped",
};

#define NAME_OF(names, i) \
	((i) < sizeof(names) / sizeof(names[0]) && names[i] ? names[i] : "?")

/* The --addr table: one row a thread. */
static void print_class_row(const struct stackinfo_query *q)
{
	char vma[40] = "-", p[5] = "-";
	const char *class = "?";

	if (q->valid & STACKINFO_VALID_ADDR)
		class = NAME_OF(class_names, q->addr_class);
	if (q->valid & STACKINFO_VALID_ADDR_VMA) {
		snprintf(vma, sizeof(vma), "%llx-%llx", (unsigned long long)q->addr_vma_start,
			 (unsigned long long)q->addr_vma_end);
		perms(q->addr_vma_flags, p);
	}
	if (!n_out++)
		printf("%7s %7s %-14s %-12s %-29s %4s\n", "TID", "PID", "ADDR", "CLASS", "VMA",
		       "PERM");
	printf("%7u %7u %-14llx %-12s %-29s %4s\n", q->out_tid, q->tgid,
	       (unsigned long long)q->addr, class, vma, p);
}

static void print_row(const struct stackinfo_query *q)
{
	uint64_t start, end, flags;
	char size[16] = "-", range[40] = "-", sp[20] = "-", guard[16] = "-";
	char alt[48];
	char p[5] = "";

	if (stack_of(q, &start, &end, &flags)) {
		snprintf(range, sizeof(range), "%llx-%llx",
			 (unsigned long long)start, (unsigned long long)end);
		human(end - start, size, sizeof(size));
		perms(flags, p);
	}
	if (q->valid & STACKINFO_VALID_SP)
		snprintf(sp, sizeof(sp), "%llx", (unsigned long long)q->sp);
	if (q->valid & STACKINFO_VALID_SP_GUARD)
		human(q->sp_guard_end - q->sp_guard_start, guard, sizeof(guard));
	altstack_cell(q, alt, sizeof(alt));
	if (!n_out++)
		printf("%7s %7s %4s %-29s %6s %4s %-14s %5s %s\n", "TID", "PID",
		       "MAIN", "STACK", "SIZE", "PERM", "SP", "GUARD", "ALTSTACK");
	printf("%7u %7u %4s %-29s %6s %4s %-14s %5s %s\n", q->out_tid, q->tgid,
	       q->thread_flags & STACKINFO_THREAD_MAIN ? "yes" : "no", range,
	       size, *p ? p : "-", sp, guard, alt);
}

static void json_addr(const char *key, bool valid, uint64_t v, bool comma)
{
	if (valid)
		printf("\"%s\": \"0x%llx\"", key, (unsigned long long)v);
	else
		printf("\"%s\": null", key);
	fputs(comma ? ", " : "", stdout);
}

static void json_range(const char *key, bool valid, uint64_t start,
		       uint64_t end, uint64_t flags)
{
	char p[5];

	if (!valid) {
		printf("\"%s\": null, ", key);
		return;
	}
	perms(flags, p);
	printf("\"%s\": {\"start\": \"0x%llx\", \"end\": \"0x%llx\", \"size\": %llu, \"perms\": \"%s\"}, ",
	       key, (unsigned long long)start, (unsigned long long)end,
	       (unsigned long long)(end - start), p);
}

static void json_rlim(const char *key, bool valid, uint64_t v, bool comma)
{
	if (!valid || v == STACKINFO_RLIM_INFINITY)
		printf("\"%s\": null", key);
	else
		printf("\"%s\": %llu", key, (unsigned long long)v);
	fputs(comma ? ", " : "", stdout);
}

static void print_json(const struct stackinfo_query *q)
{
	uint64_t v = q->valid;

	const char *by = stackinfo_backend_name(STACKINFO_LIB_ANSWERED_BY(q));

	printf("%s\n    {\"tid\": %u, \"pid\": %u, \"main\": %s, \"backend\": \"%s\", ",
	       n_out++ ? "," : "", q->out_tid, q->tgid,
	       q->thread_flags & STACKINFO_THREAD_MAIN ? "true" : "false", by ? by : "?");
	if (q->map_count)
		printf("\"map_count\": %u, ", q->map_count);
	else
		printf("\"map_count\": null, ");
	json_addr("start_stack", v & STACKINFO_VALID_START_STACK, q->start_stack, true);
	json_range("main_vma", v & STACKINFO_VALID_MAIN_VMA, q->main_vma_start,
		   q->main_vma_end, q->main_vma_flags);
	json_addr("main_prev_end", v & STACKINFO_VALID_MAIN_PREV, q->main_prev_end, true);
	json_addr("sp", v & STACKINFO_VALID_SP, q->sp, true);
	json_range("sp_vma", v & STACKINFO_VALID_SP_VMA, q->sp_vma_start,
		   q->sp_vma_end, q->sp_vma_flags);
	json_addr("sp_prev_end", v & STACKINFO_VALID_SP_PREV, q->sp_prev_end, true);
	if (v & STACKINFO_VALID_SP_GUARD)
		printf("\"guard\": {\"start\": \"0x%llx\", \"end\": \"0x%llx\", \"size\": %llu}, ",
		       (unsigned long long)q->sp_guard_start,
		       (unsigned long long)q->sp_guard_end,
		       (unsigned long long)(q->sp_guard_end - q->sp_guard_start));
	else
		printf("\"guard\": null, ");
	json_rlim("rlimit_stack_cur", v & STACKINFO_VALID_RLIMIT, q->rlim_stack_cur, true);
	json_rlim("rlimit_stack_max", v & STACKINFO_VALID_RLIMIT, q->rlim_stack_max, true);
	if (v & STACKINFO_VALID_ALTSTACK)
		printf("\"altstack\": {\"ss_sp\": \"0x%llx\", \"ss_size\": %llu, \"disabled\": %s, "
		       "\"onstack\": %s, \"autodisarm\": %s}, ",
		       (unsigned long long)q->ss_sp, (unsigned long long)q->ss_size,
		       (q->ss_flags & SS_DISABLE) ? "true" : "false",
		       (q->ss_flags & SS_ONSTACK) ? "true" : "false",
		       (q->ss_flags & STACKINFO_SS_AUTODISARM) ? "true" : "false");
	else
		printf("\"altstack\": null, ");
	if (v & STACKINFO_VALID_STACK_KIND)
		printf("\"stack_kind\": \"%s\", ", NAME_OF(kind_names, q->stack_kind));
	else
		printf("\"stack_kind\": null, ");
	if (classify) {
		printf("\"addr\": \"0x%llx\", ", (unsigned long long)q->addr);
		if (v & STACKINFO_VALID_ADDR)
			printf("\"class\": \"%s\", ", NAME_OF(class_names, q->addr_class));
		else
			printf("\"class\": null, ");
		json_range("addr_vma", v & STACKINFO_VALID_ADDR_VMA, q->addr_vma_start,
			   q->addr_vma_end, q->addr_vma_flags);
	}
	if (v & STACKINFO_VALID_GUARD_GAP)
		printf("\"guard_gap\": %llu}", (unsigned long long)q->guard_gap);
	else
		printf("\"guard_gap\": null}");
}

/* Thread @tid, which must belong to process @pid (0: any). */
static int show(pid_t tid, pid_t pid, const char *what)
{
	struct stackinfo_query q;
	int err = classify ? stackinfo_classify_addr(tid, addr, 0, &q) :
			     stackinfo_query_thread(tid, 0, &q);

	/* a tid of @pid's list may have exited and been reused since */
	if (!err && pid && q.tgid != (uint32_t)pid)
		err = -ESRCH;
	if (err) {
		fprintf(stderr, "stackinfo: %s: %s\n", what, strerror(-err));
		return err;
	}
	/* the module or the in-tree file refused and /proc answered: say so, once */
	if (STACKINFO_LIB_ANSWERED_BY(&q) != stackinfo_backend() && !told_fallback) {
		fprintf(stderr, "stackinfo: the %s backend refused %s; answered by the %s backend, as far as /proc allows\n",
			stackinfo_backend_name(stackinfo_backend()), what,
			stackinfo_backend_name(STACKINFO_LIB_ANSWERED_BY(&q)));
		told_fallback = true;
	}
	if (classify && !(q.valid & STACKINFO_VALID_ADDR) && !told_fallback) {
		fprintf(stderr, "stackinfo: the %s backend cannot classify addresses (the module or the in-tree file can)\n",
			stackinfo_backend_name(STACKINFO_LIB_ANSWERED_BY(&q)));
		told_fallback = true;
	}
	if (json)
		print_json(&q);
	else if (classify)
		print_class_row(&q);
	else
		print_row(&q);
	return 0;
}

static int parse_id(const char *s, pid_t *id)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > 0x3fffffff)
		return -EINVAL;
	*id = (pid_t)v;
	return 0;
}

/* A hex address, 0x optional, as /proc/<pid>/maps and debuggers write it. */
static int parse_addr(const char *s, uint64_t *a)
{
	char *end;

	errno = 0;
	*a = strtoull(s, &end, 16);
	if (errno || end == s || *end || *s == '-')
		return -EINVAL;
	return 0;
}

/* Every thread of @pid, in /proc/<pid>/task order. */
static int show_process(pid_t pid)
{
	char path[64], what[64];
	struct dirent *d;
	int first_err = 0, shown = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir) {
		int err = errno == ENOENT ? -ESRCH : -errno;

		fprintf(stderr, "stackinfo: process %d: %s\n", (int)pid, strerror(-err));
		return err;
	}
	while ((d = readdir(dir))) {
		pid_t tid;
		int err;

		if (parse_id(d->d_name, &tid))
			continue;
		snprintf(what, sizeof(what), "thread %d", (int)tid);
		err = show(tid, pid, what);
		if (!err)
			shown++;
		else if (err != -ESRCH && !first_err)
			first_err = err;	/* a thread that exited meanwhile is no error */
	}
	closedir(dir);
	return shown ? first_err : (first_err ? first_err : -ESRCH);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "backend", required_argument, NULL, 'b' },
		{ "addr", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	pid_t pid = 0, tid = 0;
	const char *backend = NULL;
	char what[64];
	int c, b, err;

	while ((c = getopt_long(argc, argv, "p:t:jb:a:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (parse_addr(optarg, &addr)) {
				fprintf(stderr, "stackinfo: bad address '%s'\n", optarg);
				return EXIT_USAGE;
			}
			classify = true;
			break;
		case 'p':
			if (parse_id(optarg, &pid)) {
				fprintf(stderr, "stackinfo: bad pid '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			if (parse_id(optarg, &tid)) {
				fprintf(stderr, "stackinfo: bad tid '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'b':
			backend = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("stackinfo %s\n", LIBSTACKINFO_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (backend) {
		for (b = STACKINFO_BACKEND_MODULE; stackinfo_backend_name(b); b++)
			if (!strcmp(backend, stackinfo_backend_name(b)))
				break;
		if (!stackinfo_backend_name(b)) {
			fprintf(stderr, "stackinfo: unknown backend '%s'\n", backend);
			return EXIT_USAGE;
		}
		err = stackinfo_set_backend(b);
		if (err) {
			fprintf(stderr, "stackinfo: backend %s: %s\n", backend, strerror(-err));
			return EXIT_OTHER;
		}
	}
	b = stackinfo_backend();
	if (b < 0) {
		fprintf(stderr, "stackinfo: no backend: %s\n", strerror(-b));
		return EXIT_OTHER;
	}
	/* the in-tree file needs no module: nothing to say then */
	if (b != STACKINFO_BACKEND_MODULE && b != STACKINFO_BACKEND_PROC && !backend)
		fprintf(stderr, "stackinfo: the stackinfo module is not loaded; answered by the %s backend\n",
			stackinfo_backend_name(b));

	if (json)
		printf("{\"backend\": \"%s\", \"threads\": [", stackinfo_backend_name(b));
	if (pid && tid) {
		char path[64];

		/* -p and -t: the thread must belong to the process */
		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
		snprintf(what, sizeof(what), "thread %d of process %d", (int)tid, (int)pid);
		err = access(path, F_OK) ? -ESRCH : show(tid, pid, what);
		if (err == -ESRCH && access(path, F_OK))
			fprintf(stderr, "stackinfo: %s: %s\n", what, strerror(ESRCH));
	} else if (pid) {
		err = show_process(pid);
	} else {
		snprintf(what, sizeof(what), tid ? "thread %d" : "self", (int)tid);
		err = show(tid, 0, what);
	}
	if (json)
		printf("%s]}\n", n_out ? "\n  " : "");
	return err ? exit_code(err) : 0;
}
