// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo: thread stacks for people, debuggers and tracers.
 *
 *   stackinfo                 this process (its own thread)
 *   stackinfo -p PID          every thread of PID (also: stackinfo PID)
 *   stackinfo -t TID          one thread
 *   --json                    JSON instead of the table
 *   --backend NAME            proc, module, procmap_query or maps
 *   --addr ADDR               where ADDR is for each thread shown
 *
 * Exit: 0 answered; 1 no such process or thread; 2 bad usage; 3 permission
 * denied; 4 any other failure; 5 output lost (standard output or error
 * could not be written). See stackinfo(1), which has the arguments'
 * grammar; python3 -m stackinfo (python/stackinfo/__main__.py) follows the
 * same, refusal for refusal.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libstackinfo.h"

enum { EXIT_NOSUCH = 1, EXIT_USAGE = 2, EXIT_PERM = 3, EXIT_OTHER = 4, EXIT_IO = 5 };

static bool json;
static int n_out;
static bool told_fallback;
static bool classify;
/* the backend's file, kept open for every query of the run; NULL: none */
static struct stackinfo_handle *handle;
static uint64_t addr;
static int out_errno;		/* the first write to stdout that failed */
static bool said_failed;	/* a message that stderr did not take */

/* Every write to stdout: the first failure is kept, later output dropped. */
__attribute__((format(printf, 1, 2))) static void out(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (out_errno)
		return;
	errno = 0;
	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	if (n < 0)
		out_errno = errno ? errno : EIO;
}

/* One line on stderr, "stackinfo: " first; a line it did not take is kept. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char *msg;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		said_failed = true;
		return;
	}
	if (fprintf(stderr, "stackinfo: %s\n", msg) < 0)
		said_failed = true;
	free(msg);
}

/*
 * A refusal of argument @arg: "stackinfo: WHAT 'ARG'", with every byte of
 * ARG that is not printable ASCII, and the quote and the backslash, as
 * \xHH, so that the message is one line whatever the argument holds.
 */
static int refuse(const char *what, const char *arg)
{
	char *shown = malloc(4 * strlen(arg) + 1), *p = shown;
	const unsigned char *c;

	if (!shown) {
		say("%s", what);
		return EXIT_USAGE;
	}
	for (c = (const unsigned char *)arg; *c; c++) {
		if (*c >= 0x20 && *c < 0x7f && *c != '\'' && *c != '\\')
			*p++ = (char)*c;
		else
			p += sprintf(p, "\\x%02x", *c);
	}
	*p = '\0';
	say("%s '%s'", what, shown);
	free(shown);
	return EXIT_USAGE;
}

/*
 * The end, as coreutils' close_stdout() ends: what is still buffered for
 * stdout is written and stdout closed; if any of its output was lost, say
 * so once and exit EXIT_IO, and EXIT_IO too (nothing can be said then)
 * when stderr did not take a message, whatever @status was.
 */
static int finish(int status)
{
	int err = out_errno;

	errno = 0;
	if (fclose(stdout) && !err)
		err = errno ? errno : EIO;
	if (err) {
		say("write error: %s", strerror(err));
		status = EXIT_IO;
	}
	return said_failed ? EXIT_IO : status;
}

static void usage(void)
{
	out("usage: stackinfo [-p PID | PID] [-t TID] [--json] [--backend NAME] [--addr ADDR]\n"
	    "  no option: this process's own thread\n"
	    "  -p, --pid PID      every thread of PID (decimal)\n"
	    "  -t, --tid TID      one thread (with -p: a thread of PID)\n"
	    "  -j, --json         JSON output\n"
	    "  -b, --backend NAME proc, module, procmap_query or maps\n"
	    "  -a, --addr ADDR    where ADDR (hex, 0x optional) is for each thread: its\n"
	    "                     stack, a guard, growth room, the guard gap, beyond the\n"
	    "                     limit, its sigaltstack, another mapping, unmapped\n"
	    "  -h, --help\n"
	    "  -V, --version\n"
	    "Exit: 0 answered, 1 no such process or thread, 2 bad usage, 3 permission\n"
	    "denied, 4 any other failure, 5 output lost. See stackinfo(1).\n");
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

static void perms(uint64_t flags, char cell[5])
{
	cell[0] = flags & STACKINFO_VMA_READ ? 'r' : '-';
	cell[1] = flags & STACKINFO_VMA_WRITE ? 'w' : '-';
	cell[2] = flags & STACKINFO_VMA_EXEC ? 'x' : '-';
	cell[3] = flags & STACKINFO_VMA_SHARED ? 's' : 'p';
	cell[4] = '\0';
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
		out("%7s %7s %-14s %-12s %-29s %4s\n", "TID", "PID", "ADDR", "CLASS", "VMA",
		    "PERM");
	out("%7u %7u %-14llx %-12s %-29s %4s\n", q->out_tid, q->tgid,
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
		out("%7s %7s %4s %-29s %6s %4s %-14s %5s %s\n", "TID", "PID",
		    "MAIN", "STACK", "SIZE", "PERM", "SP", "GUARD", "ALTSTACK");
	out("%7u %7u %4s %-29s %6s %4s %-14s %5s %s\n", q->out_tid, q->tgid,
	    q->thread_flags & STACKINFO_THREAD_MAIN ? "yes" : "no", range,
	    size, *p ? p : "-", sp, guard, alt);
}

static void json_addr(const char *key, bool valid, uint64_t v, bool comma)
{
	if (valid)
		out("\"%s\": \"0x%llx\"", key, (unsigned long long)v);
	else
		out("\"%s\": null", key);
	out(comma ? ", " : "");
}

static void json_range(const char *key, bool valid, uint64_t start,
		       uint64_t end, uint64_t flags)
{
	char p[5];

	if (!valid) {
		out("\"%s\": null, ", key);
		return;
	}
	perms(flags, p);
	out("\"%s\": {\"start\": \"0x%llx\", \"end\": \"0x%llx\", \"size\": %llu, \"perms\": \"%s\"}, ",
	    key, (unsigned long long)start, (unsigned long long)end,
	    (unsigned long long)(end - start), p);
}

static void json_rlim(const char *key, bool valid, uint64_t v, bool comma)
{
	if (!valid || v == STACKINFO_RLIM_INFINITY)
		out("\"%s\": null", key);
	else
		out("\"%s\": %llu", key, (unsigned long long)v);
	out(comma ? ", " : "");
}

static void print_json(const struct stackinfo_query *q)
{
	uint64_t v = q->valid;

	const char *by = stackinfo_backend_name(STACKINFO_LIB_ANSWERED_BY(q));

	out("%s\n    {\"tid\": %u, \"pid\": %u, \"main\": %s, \"backend\": \"%s\", ",
	    n_out++ ? "," : "", q->out_tid, q->tgid,
	    q->thread_flags & STACKINFO_THREAD_MAIN ? "true" : "false", by ? by : "?");
	if (q->map_count)
		out("\"map_count\": %u, ", q->map_count);
	else
		out("\"map_count\": null, ");
	json_addr("start_stack", v & STACKINFO_VALID_START_STACK, q->start_stack, true);
	json_range("main_vma", v & STACKINFO_VALID_MAIN_VMA, q->main_vma_start,
		   q->main_vma_end, q->main_vma_flags);
	json_addr("main_prev_end", v & STACKINFO_VALID_MAIN_PREV, q->main_prev_end, true);
	json_addr("sp", v & STACKINFO_VALID_SP, q->sp, true);
	json_range("sp_vma", v & STACKINFO_VALID_SP_VMA, q->sp_vma_start,
		   q->sp_vma_end, q->sp_vma_flags);
	json_addr("sp_prev_end", v & STACKINFO_VALID_SP_PREV, q->sp_prev_end, true);
	if (v & STACKINFO_VALID_SP_GUARD)
		out("\"guard\": {\"start\": \"0x%llx\", \"end\": \"0x%llx\", \"size\": %llu}, ",
		    (unsigned long long)q->sp_guard_start,
		    (unsigned long long)q->sp_guard_end,
		    (unsigned long long)(q->sp_guard_end - q->sp_guard_start));
	else
		out("\"guard\": null, ");
	json_rlim("rlimit_stack_cur", v & STACKINFO_VALID_RLIMIT, q->rlim_stack_cur, true);
	json_rlim("rlimit_stack_max", v & STACKINFO_VALID_RLIMIT, q->rlim_stack_max, true);
	if (v & STACKINFO_VALID_ALTSTACK)
		out("\"altstack\": {\"ss_sp\": \"0x%llx\", \"ss_size\": %llu, \"disabled\": %s, "
		    "\"onstack\": %s, \"autodisarm\": %s}, ",
		    (unsigned long long)q->ss_sp, (unsigned long long)q->ss_size,
		    (q->ss_flags & SS_DISABLE) ? "true" : "false",
		    (q->ss_flags & SS_ONSTACK) ? "true" : "false",
		    (q->ss_flags & STACKINFO_SS_AUTODISARM) ? "true" : "false");
	else
		out("\"altstack\": null, ");
	if (v & STACKINFO_VALID_STACK_KIND)
		out("\"stack_kind\": \"%s\", ", NAME_OF(kind_names, q->stack_kind));
	else
		out("\"stack_kind\": null, ");
	if (classify) {
		out("\"addr\": \"0x%llx\", ", (unsigned long long)q->addr);
		if (v & STACKINFO_VALID_ADDR)
			out("\"class\": \"%s\", ", NAME_OF(class_names, q->addr_class));
		else
			out("\"class\": null, ");
		json_range("addr_vma", v & STACKINFO_VALID_ADDR_VMA, q->addr_vma_start,
			   q->addr_vma_end, q->addr_vma_flags);
	}
	if (v & STACKINFO_VALID_GUARD_GAP)
		out("\"guard_gap\": %llu}", (unsigned long long)q->guard_gap);
	else
		out("\"guard_gap\": null}");
}

/* Thread @tid, which must belong to process @pid (0: any). */
static int show(pid_t tid, pid_t pid, const char *what)
{
	struct stackinfo_query q;
	int err;

	if (handle)
		err = classify ? stackinfo_handle_classify_addr(handle, tid, addr, 0, &q) :
				 stackinfo_handle_query(handle, tid, 0, &q);
	else
		err = classify ? stackinfo_classify_addr(tid, addr, 0, &q) :
				 stackinfo_query_thread(tid, 0, &q);

	/* a tid of @pid's list may have exited and been reused since */
	if (!err && pid && q.tgid != (uint32_t)pid)
		err = -ESRCH;
	if (err) {
		say("%s: %s", what, strerror(-err));
		return err;
	}
	/* the module or the in-tree file refused and /proc answered: say so, once */
	if (STACKINFO_LIB_ANSWERED_BY(&q) != stackinfo_backend() && !told_fallback) {
		say("the %s backend refused %s; answered by the %s backend, as far as /proc allows",
		    stackinfo_backend_name(stackinfo_backend()), what,
		    stackinfo_backend_name(STACKINFO_LIB_ANSWERED_BY(&q)));
		told_fallback = true;
	}
	if (classify && !(q.valid & STACKINFO_VALID_ADDR) && !told_fallback) {
		say("the %s backend cannot classify addresses (the module or the in-tree file can)",
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

/* PID and TID: decimal digits and nothing else, 1 to pid_t's largest. */
static int parse_id(const char *s, pid_t *id)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned int)(*s - '0');
		if (v > INT_MAX)
			return -EINVAL;
	}
	if (!v)
		return -EINVAL;
	*id = (pid_t)v;
	return 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * ADDR: hex digits and nothing else, 0x or 0X before them optional, as
 * /proc/<pid>/maps and debuggers write addresses; at most 64 bits.
 */
static int parse_addr(const char *s, uint64_t *a)
{
	uint64_t v = 0;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		d = hex_digit(*s);
		if (d < 0 || v >> 60)
			return -EINVAL;
		v = v << 4 | (unsigned int)d;
	}
	*a = v;
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

		say("process %d: %s", (int)pid, strerror(-err));
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

/* Option @val's long name, as a refusal names it. */
static const char *long_name(int val)
{
	const struct option *o;

	for (o = opts; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

static int twice(const char *what)
{
	say("%s given twice", what);
	return EXIT_USAGE;
}

/*
 * The arguments, by stackinfo(1)'s grammar: 0 to go on; -1 when --help or
 * --version has printed; EXIT_USAGE, said, at the first refusal.
 * getopt_long() reports its errors through optopt and argv[optind - 1]:
 * a missing value comes from the last argument; '?' with optopt 0 is an
 * unknown long option, with a flag's letter "--flag=VALUE", with any
 * other byte an unknown short option.
 */
static int parse_args(int argc, char **argv, pid_t *pid, pid_t *tid, int *backend)
{
	char letter[3] = "-";
	const char *arg;
	char *name;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:t:jb:a:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (*pid)
				return twice("pid");
			if (parse_id(optarg, pid))
				return refuse("bad pid", optarg);
			break;
		case 't':
			if (*tid)
				return twice("tid");
			if (parse_id(optarg, tid))
				return refuse("bad tid", optarg);
			break;
		case 'a':
			if (classify)
				return twice("address");
			if (parse_addr(optarg, &addr))
				return refuse("bad address", optarg);
			classify = true;
			break;
		case 'b':
			if (*backend)
				return twice("backend");
			for (*backend = STACKINFO_BACKEND_MODULE; stackinfo_backend_name(*backend);
			     ++*backend)
				if (!strcmp(optarg, stackinfo_backend_name(*backend)))
					break;
			if (!stackinfo_backend_name(*backend))
				return refuse("unknown backend", optarg);
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage();
			return -1;
		case 'V':
			out("stackinfo %s\n", LIBSTACKINFO_VERSION);
			return -1;
		case ':':
			if (!strncmp(argv[optind - 1], "--", 2))
				say("option '--%s' needs a value", long_name(optopt));
			else
				say("option '-%c' needs a value", optopt);
			return EXIT_USAGE;
		default:
			if (!optopt) {
				arg = argv[optind - 1];
				name = strndup(arg, strcspn(arg, "="));
				ret = refuse("unknown option", name ? name : arg);
				free(name);
				return ret;
			}
			if (strchr("jhV", optopt)) {
				say("option '--%s' takes no value", long_name(optopt));
				return EXIT_USAGE;
			}
			letter[1] = (char)optopt;
			return refuse("unknown option", letter);
		}
	}
	/* the operand: a PID, as -p gives it */
	for (; optind < argc; optind++) {
		if (*pid)
			return twice("pid");
		if (parse_id(argv[optind], pid))
			return refuse("bad pid", argv[optind]);
	}
	return 0;
}

/*
 * stdout or stderr closed when we were started: /dev/null opened the wrong
 * way round on its number (as gnulib's stdopen() does), so that a write
 * there fails with EBADF as on the closed number, and no file the library
 * opens can take the number and our output.
 */
static void hold_closed_std_fds(void)
{
	int fd, null;

	for (fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		null = open("/dev/null", O_RDONLY);
		if (null >= 0 && null != fd) {
			dup2(null, fd);
			close(null);
		}
	}
}

int main(int argc, char **argv)
{
	pid_t pid = 0, tid = 0;
	int b, backend = 0, err;
	char what[64];

	/*
	 * When the reader of our output goes away, end as a coreutils tool
	 * does with SIGPIPE at its default: killed by it, nothing said,
	 * whatever disposition we inherited (python3 -m stackinfo cannot know
	 * its own: Python ignores SIGPIPE before any of its code runs).
	 */
	signal(SIGPIPE, SIG_DFL);
	hold_closed_std_fds();
	err = parse_args(argc, argv, &pid, &tid, &backend);
	if (err)
		return finish(err < 0 ? 0 : err);
	if (backend) {
		err = stackinfo_set_backend(backend);
		if (err) {
			say("backend %s: %s", stackinfo_backend_name(backend), strerror(-err));
			return finish(EXIT_OTHER);
		}
	}
	b = stackinfo_backend();
	if (b < 0) {
		say("no backend: %s", strerror(-b));
		return finish(EXIT_OTHER);
	}
	/* the in-tree file needs no module: nothing to say then */
	if (b != STACKINFO_BACKEND_MODULE && b != STACKINFO_BACKEND_PROC && !backend)
		say("the stackinfo module is not loaded; answered by the %s backend",
		    stackinfo_backend_name(b));

	/* one open for every thread asked; without it, each query opens its own */
	if (stackinfo_handle_open(0, &handle))
		handle = NULL;
	if (json)
		out("{\"backend\": \"%s\", \"threads\": [", stackinfo_backend_name(b));
	if (pid && tid) {
		char path[64];

		/* -p and -t: the thread must belong to the process */
		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
		snprintf(what, sizeof(what), "thread %d of process %d", (int)tid, (int)pid);
		err = access(path, F_OK) ? -ESRCH : show(tid, pid, what);
		if (err == -ESRCH && access(path, F_OK))
			say("%s: %s", what, strerror(ESRCH));
	} else if (pid) {
		err = show_process(pid);
	} else {
		snprintf(what, sizeof(what), tid ? "thread %d" : "self", (int)tid);
		err = show(tid, 0, what);
	}
	if (json)
		out("%s]}\n", n_out ? "\n  " : "");
	stackinfo_handle_close(handle);
	return finish(err ? exit_code(err) : 0);
}
