// SPDX-License-Identifier: GPL-2.0
/*
 * mm->mm_lock_seq as a seqcount_t, odd while mmap_lock is write-locked.
 * It became one within 6.12.y; before, it was an int bumped only at
 * unlock, useless to a reader. Needs CONFIG_PER_VMA_LOCK.
 */
#include <linux/mm.h>
#include <linux/seqlock.h>

unsigned int stackinfo_probe(struct mm_struct *mm);
unsigned int stackinfo_probe(struct mm_struct *mm)
{
	unsigned int seq = raw_read_seqcount(&mm->mm_lock_seq);

	return read_seqcount_retry(&mm->mm_lock_seq, seq);
}
