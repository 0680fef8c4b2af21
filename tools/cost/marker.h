/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cost meter's region markers, shared by the guest programs that mark
 * regions and the QEMU plugin that counts them (tools/cost/plugin.c).
 *
 * A marker is one x86 instruction that does nothing: the 8-byte NOP
 * "nopl disp32(%eax,%eax,1)" (0f 1f 84 00 + disp32), with a displacement
 * no compiler emits for padding: COST_MAGIC in its high half, then an
 * operation (begin or end) and a tag (which region, 0-255). It costs the
 * guest one NOP, and the plugin recognises it from its bytes when it
 * translates the block that holds it. The same bytes decode the same in
 * 32-bit and 64-bit code.
 *
 * Counting costs the whole guest a callback a translated block, so the
 * plugin counts only inside a session: a start marker has it retranslate
 * every block with its counting callbacks, a stop marker without them. A
 * region begun outside a session is not counted.
 *
 * A data marker passes bytes to the host (the guest's kernel symbols): the
 * load right after it reads from a 256-byte aligned buffer at the offset
 * of the byte sent, and the plugin keeps the low byte of the address.
 */
#ifndef STACKINFO_COST_MARKER_H
#define STACKINFO_COST_MARKER_H

#define COST_MAGIC 0x5343 /* "SC" */
#define COST_OP_BEGIN 0x42 /* 'B' */
#define COST_OP_END 0x45 /* 'E' */
#define COST_OP_DATA 0x44 /* 'D': the next instruction's load is a byte */
#define COST_OP_START 0x53 /* 'S': count from now on (a session) */
#define COST_OP_STOP 0x58 /* 'X': the session is over */
#define COST_INSN_SIZE 8
#define COST_OPCODE0 0x0f
#define COST_OPCODE1 0x1f
#define COST_MODRM 0x84
#define COST_SIB 0x00

#define COST_DISP(op, tag) ((COST_MAGIC << 16) | ((op) << 8) | ((tag) & 0xff))

#if !defined(__ASSEMBLER__) && defined(__GNUC__) && \
	(defined(__x86_64__) || defined(__i386__))
/*
 * The marker as a compiler barrier too: memory stays where the program
 * put it relative to the marker. %c prints the constant bare.
 */
#define COST_MARK(op, tag) \
	__asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c0" \
			 : : "i"(COST_DISP(op, tag)) : "memory")
#define COST_BEGIN(tag) COST_MARK(COST_OP_BEGIN, tag)
#define COST_END(tag) COST_MARK(COST_OP_END, tag)
#define COST_START() COST_MARK(COST_OP_START, 0)
#define COST_STOP() COST_MARK(COST_OP_STOP, 0)

/*
 * Send one byte: the marker and the load in one 16-byte aligned piece of
 * code, so that no page boundary, where a translated block may end, falls
 * between them. @page is 256-byte aligned.
 */
#define COST_SEND_BYTE(page, byte) \
	__asm__ volatile(".p2align 4\n\t" \
			 ".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c2\n\t" \
			 "movzbl (%0,%1), %%eax" \
			 : : "r"(page), "r"((unsigned long)(byte)), \
			   "i"(COST_DISP(COST_OP_DATA, 0)) : "eax", "memory")
#endif

#endif /* STACKINFO_COST_MARKER_H */
