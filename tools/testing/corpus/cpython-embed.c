// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpython-embed [--time] HOME ENTRIES
 *
 * A C program that embeds CPython 3.14 (its prefix HOME, the standard
 * library in HOME/lib/python3.14) as a host that runs its scripting engine
 * on a thread of its own does: that thread initialises Python and lets go
 * of it, and the main thread enters it ENTRIES times as a callback would,
 * PyGILState_Ensure(), a little Python (recursion), PyGILState_Release().
 * The main thread has no thread state of its own between entries, so each
 * entry makes a new one, and CPython asks pthread_getattr_np() for the
 * main thread's stack when it attaches it (_PyThreadState_Attach():
 * _Py_InitializeRecursionLimits()). A last entry then nests a list deeper
 * than the C stack, on the main thread (run it under a small RLIMIT_STACK:
 * the deeper the stack, the longer repr() takes to reach its end) and on
 * a Python thread of a 1 MiB stack: CPython's C-stack check must stop
 * repr() with RecursionError, at limits taken from pthread_getattr_np()'s
 * answer, before the guard page (20 000 levels: a level takes 140 to
 * 280 bytes of C stack in Debian's build, 1 MiB at most 7 500 of them).
 * Prints the Python version, the sum of the entries' results and both
 * outcomes; with --time, µs per entry instead.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char setup[] =
	"import threading\n"
	"def down(n):\n"
	"    return 0 if n == 0 else down(n - 1) + 1\n"
	"def entry(i):\n"
	"    return down(i % 50) + i\n"
	"def deep():\n"
	"    x = None\n"
	"    for _ in range(20000):\n"
	"        x = [x]\n"
	"    try:\n"
	"        repr(x)\n"
	"        return 'repr returned'\n"
	"    except RecursionError:\n"
	"        return 'RecursionError'\n"
	"def deep_both(_):\n"
	"    out = []\n"
	"    threading.stack_size(1 << 20)\n"
	"    t = threading.Thread(target=lambda: out.append(deep()), daemon=False)\n"
	"    t.start()\n"
	"    t.join()\n"
	"    return 'main thread: ' + deep() + ', Python thread: ' + out[0]\n";

static const char *home;
static PyObject *main_mod;	/* __main__, held from start-up to the end */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int state;	/* 1: Python is up, 2: the main thread is done, -1: failed */

static void set_state(int s)
{
	pthread_mutex_lock(&lock);
	state = s;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static int wait_state(int s)
{
	int got;

	pthread_mutex_lock(&lock);
	while (state != s && state >= 0)
		pthread_cond_wait(&cond, &lock);
	got = state;
	pthread_mutex_unlock(&lock);
	return got;
}

static int start_python(void)
{
	PyPreConfig pre;
	PyConfig config;
	PyStatus st;
	PyObject *ret;

	PyPreConfig_InitIsolatedConfig(&pre);
	pre.utf8_mode = 1;	/* whatever the locale */
	st = Py_PreInitialize(&pre);
	if (PyStatus_Exception(st))
		goto fail;
	PyConfig_InitIsolatedConfig(&config);
	config.site_import = 0;
	config.install_signal_handlers = 0;
	st = PyConfig_SetBytesString(&config, &config.home, home);
	if (!PyStatus_Exception(st))
		st = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(st))
		goto fail;
	main_mod = PyImport_AddModuleRef("__main__");
	ret = main_mod ? PyRun_String(setup, Py_file_input, PyModule_GetDict(main_mod),
				      PyModule_GetDict(main_mod)) : NULL;
	if (!ret) {
		PyErr_Print();
		return -1;
	}
	Py_DECREF(ret);
	return 0;
fail:
	fprintf(stderr, "cpython-embed: %s: %s\n", st.func ? st.func : "",
		st.err_msg ? st.err_msg : "initialisation failed");
	return -1;
}

/* the engine's thread: Python up, then let go until the main thread is done */
static void *engine(void *arg)
{
	PyThreadState *ts;

	(void)arg;
	if (start_python()) {
		set_state(-1);
		return NULL;
	}
	ts = PyEval_SaveThread();
	set_state(1);
	wait_state(2);
	PyEval_RestoreThread(ts);
	Py_DECREF(main_mod);
	return Py_FinalizeEx() ? (void *)1 : NULL;
}

/*
 * One entry, as a callback: __main__.NAME(I), its result a long (or, with
 * TEXT, a string into TEXT); -1 on an error (printed)
 */
static long call(const char *name, long i, char *text, size_t len)
{
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *fn = PyObject_GetAttrString(main_mod, name);
	PyObject *arg = fn ? PyLong_FromLong(i) : NULL;
	PyObject *ret = arg ? PyObject_CallOneArg(fn, arg) : NULL;
	long v = -1;

	if (ret && text) {
		const char *s = PyUnicode_AsUTF8(ret);

		if (s) {
			snprintf(text, len, "%s", s);
			v = 0;
		}
	} else if (ret) {
		v = PyLong_AsLong(ret);
	}
	if (v < 0 && PyErr_Occurred())
		PyErr_Print();
	Py_XDECREF(ret);
	Py_XDECREF(arg);
	Py_XDECREF(fn);
	PyGILState_Release(g);
	return v;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	long entries = 0, i, v, sum = 0;
	int a = 1, timed = 0, failed = 0;
	char deep[200], version[40];
	pthread_t th;
	void *res;
	double t0, t1;

	if (a < argc && !strcmp(argv[a], "--time")) {
		timed = 1;
		a++;
	}
	if (argc - a == 2) {
		home = argv[a];
		entries = atol(argv[a + 1]);
	}
	if (entries < 1) {
		fprintf(stderr, "usage: cpython-embed [--time] HOME ENTRIES\n");
		return 2;
	}
	if (pthread_create(&th, NULL, engine, NULL))
		return 1;
	if (wait_state(1) != 1) {
		pthread_join(th, NULL);
		return 1;
	}
	t0 = now_us();
	for (i = 0; i < entries && !failed; i++) {
		v = call("entry", i, NULL, 0);
		if (v < 0)
			failed = 1;
		sum += v;
	}
	t1 = now_us();
	if (!failed && call("deep_both", 0, deep, sizeof(deep)))
		failed = 1;
	snprintf(version, sizeof(version), "%s", Py_GetVersion());
	version[strcspn(version, " ")] = 0;
	set_state(2);
	pthread_join(th, &res);
	if (failed || res)
		return 1;
	if (timed)
		printf("%.2f\n", (t1 - t0) / entries);
	else
		printf("Python %s, %ld entries from the main thread, sum %ld; %s\n",
		       version, entries, sum, deep);
	return 0;
}
