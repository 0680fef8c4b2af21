/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cost meter's known loop: a bare multiboot kernel (QEMU's -kernel
 * loads it in 32-bit protected mode, interrupts off) whose marked regions
 * execute a number of instructions known from this text alone, then leave
 * QEMU through isa-debug-exit (port 0xf4: QEMU exits with status
 * (value << 1) | 1, so 1 here). tools/testing/host/cost_plugin.sh holds
 * the plugin's counts against these:
 *   tag 1, five times: 1 + 2 * 1000 = 2001 (mov, then dec and jnz each
 *          round; its begin marker shares a block with the mov)
 *   tag 2, once: 3 (three movs between markers in one block)
 *   tag 3, once: 1 + 3 * 100000 = 300001 (a loop of three)
 * all within a session (none is counted before or after it), and passes
 * "known loop\n" through the data marker.
 * Markers are tools/cost/marker.h's, written out as bytes.
 */
#include "marker.h"

#define MARK(op, tag) .byte 0x0f, 0x1f, 0x84, 0x00; .long COST_DISP(op, tag)

	/* first in .text: the header must lie in the file's first 8 KiB */
	.text
	.p2align 2
	.long 0x1badb002		/* multiboot 1 magic */
	.long 0				/* flags: an ELF, nothing asked */
	.long -0x1badb002		/* checksum */

	.globl _start
	.code32
_start:
	cli
	/* a region before the session is not counted: not in the results */
	MARK(COST_OP_BEGIN, 4)
	nop
	MARK(COST_OP_END, 4)
	MARK(COST_OP_START, 0)
	/* the flush runs at the next block's end: give it a few */
	mov $100, %ecx
7:	dec %ecx
	jnz 7b

	mov $5, %ebx
1:	MARK(COST_OP_BEGIN, 1)
	mov $1000, %ecx
2:	dec %ecx
	jnz 2b
	MARK(COST_OP_END, 1)
	dec %ebx
	jnz 1b

	MARK(COST_OP_BEGIN, 2)
	mov $1, %eax
	mov $2, %ecx
	mov $3, %edx
	MARK(COST_OP_END, 2)

	MARK(COST_OP_BEGIN, 3)
	mov $100000, %ecx
3:	add $1, %eax
	dec %ecx
	jnz 3b
	MARK(COST_OP_END, 3)

	/* a byte a load from a 256-byte aligned page (paging is off) */
	mov $msg, %esi
	mov $0x200000, %ebp
5:	movzbl (%esi), %ecx
	test %ecx, %ecx
	jz 6f
	.p2align 4
	MARK(COST_OP_DATA, 0)
	movzbl (%ebp,%ecx,1), %eax
	inc %esi
	jmp 5b

6:	MARK(COST_OP_STOP, 0)
	/* nor one after it */
	MARK(COST_OP_BEGIN, 5)
	nop
	MARK(COST_OP_END, 5)
	mov $0, %al
	out %al, $0xf4
4:	hlt
	jmp 4b

msg:	.asciz "known loop\n"
