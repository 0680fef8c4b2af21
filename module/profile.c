// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: the measurement build's per-step cycle counters (profile.h).
 * Read /sys/module/stackinfo/parameters/profile for "tsc_khz N" and one
 * "step cycles count" line a step, summed over CPUs; write anything to it
 * to zero them. The counters are per-CPU and the chain's last timestamp
 * too, so a query that migrates between two marks gives one step a wrong
 * sample: rare, and a profile, not an answer.
 */
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timex.h>
#include <asm/tsc.h>

#include "profile.h"

static const char *const stackinfo_step_names[STACKINFO_STEP_NR] = {
	[STACKINFO_STEP_MARK] = "mark",
	[STACKINFO_STEP_ENTRY] = "entry",
	[STACKINFO_STEP_QUERY] = "query",
	[STACKINFO_STEP_CALLER_PUT] = "caller_put",
	[STACKINFO_STEP_COPY_OUT] = "copy_out",
};

struct stackinfo_prof_cpu {
	u64 last;
	u64 cycles[STACKINFO_STEP_NR];
	u64 count[STACKINFO_STEP_NR];
};

static DEFINE_PER_CPU(struct stackinfo_prof_cpu, stackinfo_prof_cpu);

void stackinfo_prof_begin(void)
{
	this_cpu_write(stackinfo_prof_cpu.last, get_cycles());
}

void stackinfo_prof(enum stackinfo_step step)
{
	u64 now = get_cycles();

	this_cpu_add(stackinfo_prof_cpu.cycles[step],
		     now - this_cpu_read(stackinfo_prof_cpu.last));
	this_cpu_inc(stackinfo_prof_cpu.count[step]);
	/* the next step starts after this mark's own bookkeeping */
	this_cpu_write(stackinfo_prof_cpu.last, get_cycles());
}

static int stackinfo_prof_get(char *buf, const struct kernel_param *kp)
{
	int len, step, cpu;

	len = sysfs_emit(buf, "tsc_khz %u\n", tsc_khz);
	for (step = 0; step < STACKINFO_STEP_NR; step++) {
		u64 cycles = 0, count = 0;

		for_each_possible_cpu(cpu) {
			cycles += per_cpu(stackinfo_prof_cpu, cpu).cycles[step];
			count += per_cpu(stackinfo_prof_cpu, cpu).count[step];
		}
		len += sysfs_emit_at(buf, len, "%s %llu %llu\n",
				     stackinfo_step_names[step], cycles, count);
	}
	return len;
}

static int stackinfo_prof_reset(const char *val, const struct kernel_param *kp)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stackinfo_prof_cpu *p =
			per_cpu_ptr(&stackinfo_prof_cpu, cpu);

		memset(p->cycles, 0, sizeof(p->cycles));
		memset(p->count, 0, sizeof(p->count));
	}
	return 0;
}

static const struct kernel_param_ops stackinfo_prof_ops = {
	.set = stackinfo_prof_reset,
	.get = stackinfo_prof_get,
};

module_param_cb(profile, &stackinfo_prof_ops, NULL, 0644);
MODULE_PARM_DESC(profile,
		 "measurement build: cycles per query step; write to zero");
