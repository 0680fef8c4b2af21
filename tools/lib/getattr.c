// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: the main thread's stack as glibc reports it, and
 * stackinfo_pthread_getattr_np(), which must give exactly glibc's answer
 * or let glibc give it. glibc's answer for its initial thread is a parse
 * of /proc/self/maps plus fields copied from its thread descriptor; the
 * library computes the first from the kernel's values and builds the rest
 * only where it knows what the descriptor holds. Every case it cannot
 * match goes to glibc's own function, listed in libstackinfo(3) under
 * "where the library hands a call to glibc".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "internal.h"

extern void *__libc_stack_end;

/* how far below __libc_stack_end start-up constructors run, at most */
#define SI_INIT_WINDOW	(1ULL << 20)

/*
 * glibc's initial thread: the one thread whose stack glibc takes from
 * /proc/self/maps (its struct pthread has no stack block; every thread
 * pthread_create() made has one, with the struct inside it). Fixed from
 * exec to exit, and a property of the descriptor, so it holds in every
 * child however made (fork(), _Fork(), a raw clone): a child of the
 * initial thread runs on that descriptor and is it; a child of a worker
 * runs on the worker's, stack block and all, and has no initial thread
 * though the kernel makes it the group leader. Published with release.
 */
static pthread_t si_main_thread;
static bool si_main_known;
/* the check of the initial thread's answer against glibc's: see below */
enum { SI_PROBE_FIRST, SI_PROBE_CHECK, SI_PROBE_STORING, SI_PROBE_OURS, SI_PROBE_GLIBC };
static int si_probe;
/* what the check learnt from glibc, published by si_probe's SI_PROBE_OURS */
static size_t si_probe_guard;
static uintptr_t si_probe_join;		/* the detach word's value then */
static bool si_probe_detached;		/* and glibc's detach state */

/*
 * Is the calling thread glibc's initial thread, judged from the stack it
 * runs on, [lo, hi) holding __libc_stack_end? The initial thread runs
 * there, and its struct pthread (pthread_self()) is not there (the dynamic
 * linker allocated it). A thread of pthread_create()'s that runs on that
 * stack (a stack carved from it, given by pthread_attr_setstack()) has its
 * struct pthread there too; any other runs on a stack of its own, and so
 * does the only thread of a child that a worker fork()ed (the worker's).
 * No system call: the interposer makes none that glibc's
 * pthread_getattr_np() would not. A thread running elsewhere (coroutine,
 * sigaltstack) is not recognised: glibc answers for it.
 */
static bool si_self_initial(uint64_t lo, uint64_t hi)
{
	uint64_t sp = (uintptr_t)__builtin_frame_address(0);
	uint64_t self = (uintptr_t)pthread_self();

	return sp >= lo && sp < hi && !(self >= lo && self < hi);
}

static void si_set_main(void)
{
	si_main_thread = pthread_self();
	__atomic_store_n(&si_main_known, true, __ATOMIC_RELEASE);
}

/*
 * What glibc's pthread_getattr_np() copies from its descriptor of the
 * thread (nptl/pthread_getattr_np.c): policy, priority, the flags word and
 * whether it is detached. Found from what glibc publishes for
 * libthread_db, on every glibc from 2.31 to 2.43 alike, with no table of
 * versions: the policy and the priority are published; the flags word is
 * the int right after the published cancelhandling; the detach state is
 * the word two pointers before the priority (nptl/descr.h: joinid, result,
 * schedparam, schedpolicy through 2.41, where a detached thread's joinid
 * is its own descriptor; joinstate, a 32-bit THREAD_STATE_* padded to the
 * pointer, from 2.42 on). What that word means is not assumed: the check
 * against glibc's answer (si_main_check()) records the value it held when
 * glibc said the thread was (or was not) detached, and the library
 * answers only while it holds that value (a detach changes it in either
 * layout, for good). The layout must pass the published sizes' checks
 * (schedpolicy right after the sched_param, the flags word before the
 * detach word, all inside the descriptor) and the proof on the running
 * process: at the check, every field of the library's answer equal to
 * glibc's. Offsets, -1 when not to be read; si_off_reason says why the
 * library leaves the main thread to glibc (the interposer's stats line).
 */
static int si_policy_off = -1, si_prio_off = -1, si_flags_off = -1, si_join_off = -1;
static const char *si_off_reason;

static int si_db_offset(enum si_db_name name)
{
	const uint32_t *d = si_glibc_db(name), *size = si_glibc_db(SI_DB_SIZEOF_PTHREAD);

	if (!d || !size || d[0] != 32 || d[1] != 1 || d[2] > *size - sizeof(int))
		return -1;
	return (int)d[2];
}

static void si_descr_init(void)
{
	int policy = si_db_offset(SI_DB_SCHEDPOLICY);
	int prio = si_db_offset(SI_DB_PRIORITY);
	int cancel = si_db_offset(SI_DB_CANCELHANDLING);
	int join = prio - 2 * (int)sizeof(void *);

	if (policy < 0 || prio < 0 || cancel < 0) {
		si_off_reason = "the C library publishes no thread descriptor layout";
		return;
	}
	if (policy != prio + (int)sizeof(struct sched_param) || prio % sizeof(void *) ||
	    join < cancel + 2 * (int)sizeof(int)) {
		si_off_reason = "the published descriptor layout is not glibc 2.31-2.43's";
		return;
	}
	si_flags_off = cancel + sizeof(int);
	si_join_off = join;
	si_prio_off = prio;
	si_policy_off = policy;
}

typedef int (*si_getattr_fn)(pthread_t, pthread_attr_t *);
static si_getattr_fn si_glibc_getattr(void);
static void si_attr_flags_init(void);

__attribute__((constructor)) static void si_getattr_init(void)
{
	uint64_t lse = (uintptr_t)__libc_stack_end;
	const char *check = secure_getenv("STACKINFO_CHECK");

	/*
	 * Loaded with the program (LD_PRELOAD, DT_NEEDED, static), constructors
	 * run on the initial thread a few frames below __libc_stack_end.
	 * dlopen() from elsewhere leaves it unknown until that thread asks.
	 */
	if (si_self_initial(lse > SI_INIT_WINDOW ? lse - SI_INIT_WINDOW : 0, lse + 1))
		si_set_main();
	if (check && !strcmp(check, "first"))
		si_probe = SI_PROBE_CHECK;
	si_descr_init();
	si_attr_flags_init();
	/*
	 * and glibc's function: dlsym() takes the dynamic linker's lock,
	 * which a child forked while another thread held it would find held
	 * for good
	 */
	si_glibc_getattr();
}

/*
 * Is @th glibc's initial thread? Known from the constructor when the
 * library came with the program; otherwise learnt when that thread asks
 * about itself. Until then, every call goes to glibc.
 */
static bool si_is_main(pthread_t th)
{
	uint64_t lo, size, vlo, vhi;

	if (__atomic_load_n(&si_main_known, __ATOMIC_ACQUIRE))
		return pthread_equal(th, si_main_thread);
	if (!pthread_equal(th, pthread_self()))
		return false;
	if (si_main_stack(true, &lo, &size, &vlo, &vhi) || !si_self_initial(vlo, vhi))
		return false;
	si_set_main();
	return true;
}

/* glibc's attr flags (sysdeps/nptl/internaltypes.h) the library can set */
#define SI_ATTR_FLAG_DETACHSTATE	0x01	/* pthread_attr_setdetachstate() */
#define SI_ATTR_FLAG_SCHED_SET		0x20	/* pthread_attr_setschedparam()'s */
#define SI_ATTR_FLAG_POLICY_SET		0x40	/* pthread_attr_setschedpolicy() */

/*
 * What glibc's descriptor of the main thread says, as its call copies it;
 * join, the detach word, is compared, never interpreted.
 */
struct si_descr {
	int policy, prio;
	unsigned int flags;
	uintptr_t join;
};

/*
 * Read without glibc's lock, which its writers hold: the flags word only
 * gains bits, so a read bracketed by two equal reads of it saw no writer
 * mark the policy set; the policy and priority pair the library answers,
 * SCHED_OTHER/0, is one every state glibc stores with SCHED_OTHER has (the
 * kernel refuses another priority), so a read racing a writer and seeing
 * it is a state glibc could have answered; a detach only ever happens
 * once. 0, or -EAGAIN (flags kept moving), -ENOENT (not to be read).
 */
static int si_descr_read(pthread_t th, struct si_descr *d)
{
	const char *p = (const char *)th;
	unsigned int again;
	int i;

	if (si_flags_off < 0)
		return -ENOENT;
	for (i = 0; i < 8; i++) {
		d->flags = __atomic_load_n((const unsigned int *)(p + si_flags_off),
					   __ATOMIC_ACQUIRE);
		d->policy = __atomic_load_n((const int *)(p + si_policy_off), __ATOMIC_RELAXED);
		d->prio = __atomic_load_n((const int *)(p + si_prio_off), __ATOMIC_RELAXED);
		d->join = __atomic_load_n((const uintptr_t *)(p + si_join_off),
					  __ATOMIC_RELAXED);
		again = __atomic_load_n((const unsigned int *)(p + si_flags_off),
					__ATOMIC_ACQUIRE);
		if (again == d->flags)
			return 0;
	}
	return -EAGAIN;
}

/*
 * Can the library build glibc's answer from @d? Only where the
 * descriptor holds SCHED_OTHER/0 (until the program asks or sets the
 * policy through glibc, or locks a PTHREAD_PRIO_PROTECT mutex, it does;
 * then the kernel's at that moment) and no flag but the two "set" flags
 * si_fill_attr() reproduces.
 */
static bool si_descr_ours(const struct si_descr *d)
{
	return d->policy == SCHED_OTHER && !d->prio &&
	       !(d->flags & ~(SI_ATTR_FLAG_SCHED_SET | SI_ATTR_FLAG_POLICY_SET));
}

/*
 * A zombie main thread (it called pthread_exit()) has no mm: glibc finds
 * nothing in its empty /proc/self/maps. Asked from another thread, the
 * library leaves that answer to glibc; state Z in /proc/self/stat, which
 * shows the group leader's state.
 */
static bool si_main_alive(pthread_t th)
{
	char buf[512], *p;

	if (pthread_equal(th, pthread_self()))
		return true;
	if (si_read_file("/proc/self/stat", buf, sizeof(buf)) < 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/*
 * glibc's own pthread_getattr_np: the next definition after this object,
 * whoever interposes it. A static program (no program interpreter:
 * AT_BASE is 0) has no dynamic linker to ask, and leaves no dlerror()
 * message behind: the one linked in is glibc's (never so in the
 * interposer, whose own pthread_getattr_np that would be). The
 * interposer, a shared object, always has the dynamic linker to ask, also
 * where AT_BASE is 0 because the program was started by running the
 * dynamic linker itself (ld-linux-x86-64.so.2 PROGRAM: the kernel loaded
 * no interpreter).
 */
static si_getattr_fn si_glibc_getattr(void)
{
	static si_getattr_fn fn;
	si_getattr_fn f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);

	if (!f) {
		if (getauxval(AT_BASE) || &si_interposing) {
			f = (si_getattr_fn)dlsym(RTLD_NEXT, "pthread_getattr_np");
			if (!f)
				dlerror();	/* ours, not the program's */
		} else if (!&si_interposing) {
			f = pthread_getattr_np;
		}
		__atomic_store_n(&fn, f, __ATOMIC_RELEASE);
	}
	return f;
}

/*
 * The CPU set, in the sizes glibc tries (32 bytes, doubling while the
 * kernel says EINVAL: its CPU count is larger); the first in a buffer on
 * the stack, where glibc's realloc()s (the attr gets a copy either way).
 */
static int si_copy_affinity(pthread_t th, pthread_attr_t *attr)
{
	uint64_t first[32 / sizeof(uint64_t)];
	cpu_set_t *set = (cpu_set_t *)first, *heap = NULL;
	size_t setsize = sizeof(first);
	int ret = pthread_getaffinity_np(th, setsize, set);

	while (ret == EINVAL && setsize < 1024 * 1024) {
		cpu_set_t *bigger;

		setsize <<= 1;
		bigger = realloc(heap, setsize);
		if (!bigger) {
			ret = ENOMEM;
			break;
		}
		set = heap = bigger;
		ret = pthread_getaffinity_np(th, setsize, set);
	}
	if (!ret)
		ret = pthread_attr_setaffinity_np(attr, setsize, set);
	else if (ret == ENOSYS)
		ret = 0;
	free(heap);
	return ret;
}

/*
 * The attr's flags word (glibc's struct pthread_attr, sysdeps/nptl/
 * internaltypes.h: after the sched_param and the policy), found on the
 * running glibc by what its own setters change: pthread_attr_setdetachstate()
 * sets ATTR_FLAG_DETACHSTATE there and pthread_attr_setschedpolicy()
 * ATTR_FLAG_POLICY_SET (SCHED_OTHER leaves the policy field 0), each in one
 * int and in no other byte, and neither makes a system call. The byte
 * offset, -1 where that does not hold. pthread_attr_setschedparam(), the
 * setter of ATTR_FLAG_SCHED_SET, is not what the library calls: it checks
 * the priority with sched_get_priority_min() and _max(), two system calls
 * glibc's pthread_getattr_np() does not make; glibc's call copies the
 * descriptor's flags and sched_param instead, and so does the library,
 * into this word.
 */
static int si_attr_flags_off = -1;


/* The one int in which @a and @b differ, by @bit exactly: its offset, or -1. */
static int si_attr_word(const pthread_attr_t *a, const pthread_attr_t *b, unsigned int bit)
{
	int off = -1;
	size_t i;

	for (i = 0; i + sizeof(int) <= sizeof(*a); i += sizeof(int)) {
		unsigned int x, y;

		memcpy(&x, (const char *)a + i, sizeof(x));
		memcpy(&y, (const char *)b + i, sizeof(y));
		if (x == y)
			continue;
		if (off >= 0 || (x ^ y) != bit || !(y & bit))
			return -1;
		off = (int)i;
	}
	return off;
}

static void si_attr_flags_init(void)
{
	pthread_attr_t plain, detached, policy;
	int off = -1;

	if (pthread_attr_init(&plain))
		return;
	if (!pthread_attr_init(&detached)) {
		if (!pthread_attr_init(&policy)) {
			if (!pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED) &&
			    !pthread_attr_setschedpolicy(&policy, SCHED_OTHER)) {
				off = si_attr_word(&plain, &detached, SI_ATTR_FLAG_DETACHSTATE);
				if (off != si_attr_word(&plain, &policy, SI_ATTR_FLAG_POLICY_SET))
					off = -1;
			}
			pthread_attr_destroy(&policy);
		}
		pthread_attr_destroy(&detached);
	}
	pthread_attr_destroy(&plain);
	si_attr_flags_off = off;
}

/* Set @bit in @attr's flags word: 0, or -1 where it is not known. */
static int si_attr_flag_set(pthread_attr_t *attr, unsigned int bit)
{
	unsigned int flags;

	if (si_attr_flags_off < 0)
		return -1;
	memcpy(&flags, (char *)attr + si_attr_flags_off, sizeof(flags));
	flags |= bit;
	memcpy((char *)attr + si_attr_flags_off, &flags, sizeof(flags));
	return 0;
}

/* glibc's own call, with errno as the caller left it */
static int si_to_glibc(si_getattr_fn glibc, pthread_t thread, pthread_attr_t *attr, int saved)
{
	errno = saved;
	return glibc(thread, attr);
}

/*
 * glibc's main-thread attributes: the stack, the guard size learnt at the
 * check, the detach state glibc gave at the check, the descriptor's "set"
 * flags (SCHED_OTHER/0 being pthread_attr_init()'s own, as the sched_param
 * glibc would copy is), the CPU set. 0, -1 where the attr cannot be made
 * glibc's, or an error of glibc's setters.
 */
static int si_fill_attr(pthread_t th, pthread_attr_t *attr, void *addr, size_t size,
			size_t guard, bool detached, const struct si_descr *d)
{
	int ret = pthread_attr_setstack(attr, addr, size);

	if (!ret)
		ret = pthread_attr_setguardsize(attr, guard);
	if (!ret && detached)
		ret = pthread_attr_setdetachstate(attr, PTHREAD_CREATE_DETACHED);
	if (!ret && (d->flags & SI_ATTR_FLAG_POLICY_SET))
		ret = pthread_attr_setschedpolicy(attr, SCHED_OTHER);
	if (!ret && (d->flags & SI_ATTR_FLAG_SCHED_SET))
		ret = si_attr_flag_set(attr, SI_ATTR_FLAG_SCHED_SET);
	if (!ret)
		ret = si_copy_affinity(th, attr);
	return ret;
}

/* The library's answer from the stack [lo, lo + size) and @d: as above. */
static int si_make_attr(pthread_t th, pthread_attr_t *attr, uint64_t lo, uint64_t size,
			size_t guard, bool detached, const struct si_descr *d)
{
	int ret = pthread_attr_init(attr);

	if (ret)
		return ret;
	ret = si_fill_attr(th, attr, (void *)(uintptr_t)lo, size, guard, detached, d);
	if (ret) {
		pthread_attr_destroy(attr);
		return -1;
	}
	return 0;
}

/*
 * The library's answer for the main thread, or -1 for glibc's: the
 * descriptor is read last, after the stack, so that what it says is at
 * least as new as the stack's values; only while its detach word holds
 * what it held at the check (a detach, a joiner waiting, anything else
 * changes it: glibc's answer then).
 */
static int si_main_attr(pthread_t thread, pthread_attr_t *attr)
{
	uint64_t lo, size, vlo, vhi;
	struct si_descr d;

	if (si_main_stack(true, &lo, &size, &vlo, &vhi) || size < (uint64_t)PTHREAD_STACK_MIN ||
	    si_descr_read(thread, &d) || !si_descr_ours(&d) ||
	    d.join != __atomic_load_n(&si_probe_join, __ATOMIC_RELAXED))
		return -1;
	return si_make_attr(thread, attr, lo, size,
			    __atomic_load_n(&si_probe_guard, __ATOMIC_RELAXED),
			    __atomic_load_n(&si_probe_detached, __ATOMIC_RELAXED), &d);
}

/*
 * The first field in which the attrs @a (glibc's) and @b (the library's)
 * differ, as glibc's getters and the flags word show them; NULL if none.
 */
static const char *si_attr_differs(const pthread_attr_t *a, const pthread_attr_t *b)
{
	int ia, ib, ra, rb;
	size_t za, zb;
	void *pa, *pb;
	struct sched_param sa, sb;
	cpu_set_t ca, cb;
	unsigned int fa, fb;

	pthread_attr_getstack(a, &pa, &za);
	pthread_attr_getstack(b, &pb, &zb);
	if (pa != pb || za != zb)
		return "the check: glibc's stack differed";
	pthread_attr_getguardsize(a, &za);
	pthread_attr_getguardsize(b, &zb);
	if (za != zb)
		return "the check: glibc's guard size differed";
	pthread_attr_getdetachstate(a, &ia);
	pthread_attr_getdetachstate(b, &ib);
	if (ia != ib)
		return "the check: glibc's detach state differed";
	pthread_attr_getschedpolicy(a, &ia);
	pthread_attr_getschedpolicy(b, &ib);
	pthread_attr_getschedparam(a, &sa);
	pthread_attr_getschedparam(b, &sb);
	if (ia != ib || sa.sched_priority != sb.sched_priority)
		return "the check: glibc's policy differed";
	pthread_attr_getinheritsched(a, &ia);
	pthread_attr_getinheritsched(b, &ib);
	pthread_attr_getscope(a, &ra);
	pthread_attr_getscope(b, &rb);
	if (ia != ib || ra != rb)
		return "the check: glibc's inherit or scope differed";
	if (si_attr_flags_off < 0)
		return "the check: glibc's flags word differed";
	memcpy(&fa, (const char *)a + si_attr_flags_off, sizeof(fa));
	memcpy(&fb, (const char *)b + si_attr_flags_off, sizeof(fb));
	if (fa != fb)
		return "the check: glibc's flags word differed";
	CPU_ZERO(&ca);
	CPU_ZERO(&cb);
	ra = pthread_attr_getaffinity_np(a, sizeof(ca), &ca);
	rb = pthread_attr_getaffinity_np(b, sizeof(cb), &cb);
	if (ra != rb || !CPU_EQUAL(&ca, &cb))
		return "the check: glibc's CPU set differed";
	return NULL;
}

/*
 * glibc's answer is the reference, asked lazily. The initial thread's
 * first call goes to glibc unchanged: a program that asks once (most do,
 * at start-up) pays what it paid without the library, not glibc's maps
 * parse plus a query. The second call asks glibc too and checks the
 * library's whole answer against it: the stack computed just before and
 * just after (a layout that changed in between is no mismatch), and every
 * field built from the descriptor as read just before and just after
 * glibc's call (a descriptor that changed in between: checked again at
 * the next call), learning glibc's guard size and detach state with the
 * detach word's value. If they agree the library answers that call and
 * every later one alone. A mismatch (a layout this library does not
 * understand) sends every later call to glibc and says why
 * (si_getattr_off()). STACKINFO_CHECK=first checks at the first call
 * instead (its cost is then a maps parse more than glibc's alone).
 */
static int si_main_check(si_getattr_fn glibc, pthread_t th, pthread_attr_t *attr, int saved)
{
	int before, ret, verdict = SI_PROBE_GLIBC, want = SI_PROBE_CHECK, detach, glibc_errno;
	struct si_descr d0, d1;
	uint64_t a, s, vlo, vhi;
	const char *why = NULL;
	pthread_attr_t mine;
	size_t gs, guard;
	void *ga;

	before = si_main_stack(true, &a, &s, &vlo, &vhi);
	if (si_descr_read(th, &d0))
		return si_to_glibc(glibc, th, attr, saved);
	errno = saved;
	ret = glibc(th, attr);
	if (ret)
		return ret;	/* glibc could not tell (no fd?): check next time */
	glibc_errno = errno;
	if (si_descr_read(th, &d1) || d0.policy != d1.policy || d0.prio != d1.prio ||
	    d0.flags != d1.flags || d0.join != d1.join || !si_descr_ours(&d1))
		goto out;	/* moving, or a policy set: glibc's, this time */
	pthread_attr_getstack(attr, &ga, &gs);
	pthread_attr_getguardsize(attr, &guard);
	pthread_attr_getdetachstate(attr, &detach);
	if (!((!before && a == (uintptr_t)ga && s == gs) ||
	      (!si_main_stack(true, &a, &s, &vlo, &vhi) && a == (uintptr_t)ga && s == gs))) {
		why = "the check: glibc's stack differed";
	} else if (si_make_attr(th, &mine, a, s, guard, detach == PTHREAD_CREATE_DETACHED, &d1)) {
		why = "the check: an attr the library cannot build";
	} else {
		why = si_attr_differs(attr, &mine);
		pthread_attr_destroy(&mine);
	}
	if (!why)
		verdict = SI_PROBE_OURS;
	/* one checker stores what it learnt, then its verdict */
	if (__atomic_compare_exchange_n(&si_probe, &want, SI_PROBE_STORING, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		__atomic_store_n(&si_probe_guard, guard, __ATOMIC_RELAXED);
		__atomic_store_n(&si_probe_join, d1.join, __ATOMIC_RELAXED);
		__atomic_store_n(&si_probe_detached, detach == PTHREAD_CREATE_DETACHED,
				 __ATOMIC_RELAXED);
		if (why)
			__atomic_store_n(&si_off_reason, why, __ATOMIC_RELAXED);
		__atomic_store_n(&si_probe, verdict, __ATOMIC_RELEASE);
	}
out:
	errno = glibc_errno;	/* as glibc's own call left it */
	return 0;
}

/*
 * errno is as the caller left it after the library's own answer, and as
 * glibc's call leaves it where glibc answers: whatever the library's own
 * system calls did to it is undone.
 */
int si_pthread_getattr_np(pthread_t thread, pthread_attr_t *attr, enum si_answer *how)
{
	si_getattr_fn glibc = si_glibc_getattr();
	int saved = errno, probe, first = SI_PROBE_FIRST, ret;
	struct si_descr d;

	*how = SI_ANSWER_OTHER;
	if (!glibc)
		return ENOSYS;
	if (!si_is_main(thread))
		return si_to_glibc(glibc, thread, attr, saved);
	*how = SI_ANSWER_MAIN_GLIBC;
	if (si_descr_read(thread, &d) || !si_descr_ours(&d) || !si_main_alive(thread))
		return si_to_glibc(glibc, thread, attr, saved);
	probe = __atomic_load_n(&si_probe, __ATOMIC_ACQUIRE);
	if (probe == SI_PROBE_FIRST &&
	    __atomic_compare_exchange_n(&si_probe, &first, SI_PROBE_CHECK, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return si_to_glibc(glibc, thread, attr, saved);
	if (probe == SI_PROBE_FIRST || probe == SI_PROBE_CHECK) {
		/* (SI_PROBE_STORING: another checker is deciding: glibc's) */
		ret = si_main_check(glibc, thread, attr, saved);
		if (ret || __atomic_load_n(&si_probe, __ATOMIC_ACQUIRE) != SI_PROBE_OURS)
			return ret;
		/* checked: the library answers from this call on */
		pthread_attr_destroy(attr);
	} else if (probe != SI_PROBE_OURS) {
		return si_to_glibc(glibc, thread, attr, saved);
	}
	ret = si_main_attr(thread, attr);
	if (ret < 0)
		return si_to_glibc(glibc, thread, attr, saved);
	if (!ret)
		*how = SI_ANSWER_MAIN_LIBRARY;
	errno = saved;
	return ret;
}

/*
 * Why the library leaves every main-thread call to glibc, or NULL while it
 * may answer: no layout it can read, or the check found a field differing
 * (named). For the interposer's stats line.
 */
const char *si_getattr_off(void)
{
	const char *why = __atomic_load_n(&si_off_reason, __ATOMIC_RELAXED);

	if (why || __atomic_load_n(&si_probe, __ATOMIC_ACQUIRE) != SI_PROBE_GLIBC)
		return why;
	return "the check against glibc's answer";
}

SI_EXPORT int stackinfo_pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
	enum si_answer how;

	return si_pthread_getattr_np(thread, attr, &how);
}
