// SPDX-License-Identifier: GPL-2.0
/* The kernel's own helpers for the same sequence (upstream 6.14+). */
#include <linux/mm.h>
#include <linux/mmap_lock.h>

bool stackinfo_probe(struct mm_struct *mm);
bool stackinfo_probe(struct mm_struct *mm)
{
	unsigned int seq;

	return mmap_lock_speculate_try_begin(mm, &seq) &&
	       !mmap_lock_speculate_retry(mm, seq);
}
