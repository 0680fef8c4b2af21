# SPDX-License-Identifier: LGPL-2.1-or-later
"""struct stackinfo_query and its constants, as ctypes declares them.

A declaration of include/uapi/linux/stackinfo.h for ctypes, nothing more:
the library fills the struct, this module only names its fields. The host
test python_bindings checks every offset, size and constant here against
what the C compiler says of the header itself.
"""
import ctypes

QUERY_NO_SP = 1 << 0

VALID_THREAD = 1 << 0
VALID_START_STACK = 1 << 1
VALID_MAIN_VMA = 1 << 2
VALID_MAIN_PREV = 1 << 3
VALID_SP = 1 << 4
VALID_SP_VMA = 1 << 5
VALID_SP_PREV = 1 << 6
VALID_SP_GUARD = 1 << 7
VALID_RLIMIT = 1 << 8
VALID_GUARD_GAP = 1 << 9
VALID_ALTSTACK = 1 << 10
VALID_STACK_KIND = 1 << 11
VALID_ADDR = 1 << 12
VALID_ADDR_VMA = 1 << 13

THREAD_MAIN = 1 << 0
THREAD_SELF = 1 << 1
THREAD_WORKER = 1 << 2
THREAD_USER_MASK = 0xFF000000

VMA_READ = 1 << 0
VMA_WRITE = 1 << 1
VMA_EXEC = 1 << 2
VMA_SHARED = 1 << 3
VMA_GROWSDOWN = 1 << 4

RLIM_INFINITY = (1 << 64) - 1

# stack_kind, and the names stackinfo(1) gives them
STACK_UNKNOWN = 0
STACK_MAIN = 1
STACK_THREAD = 2
STACK_ALTSTACK = 3
STACK_KIND_NAMES = {STACK_UNKNOWN: "unknown", STACK_MAIN: "main",
                    STACK_THREAD: "thread", STACK_ALTSTACK: "altstack"}

# addr_class, and the names stackinfo(1) --addr gives them
ADDR_STACK = 1
ADDR_GUARD = 2
ADDR_GROWTH = 3
ADDR_GUARD_GAP = 4
ADDR_BEYOND_LIMIT = 5
ADDR_ALTSTACK = 6
ADDR_MAPPED = 7
ADDR_UNMAPPED = 8
ADDR_CLASS_NAMES = {ADDR_STACK: "stack", ADDR_GUARD: "guard", ADDR_GROWTH: "growth",
                    ADDR_GUARD_GAP: "guard-gap", ADDR_BEYOND_LIMIT: "beyond-limit",
                    ADDR_ALTSTACK: "altstack", ADDR_MAPPED: "mapped",
                    ADDR_UNMAPPED: "unmapped"}

# ss_flags: <linux/signal.h>'s, and libstackinfo.h's SS_AUTODISARM
SS_ONSTACK = 1
SS_DISABLE = 2
SS_AUTODISARM = 1 << 31

# libstackinfo.h: the backend that answered, in thread_flags' user bits
LIB_BACKEND_SHIFT = 24

_u32 = ctypes.c_uint32
_u64 = ctypes.c_uint64


class Query(ctypes.Structure):
    """struct stackinfo_query (VER2)."""

    _fields_ = [
        ("size", _u64),
        ("query_flags", _u64),
        ("tid", _u32),
        ("reserved", _u32),
        ("valid", _u64),
        ("out_tid", _u32),
        ("tgid", _u32),
        ("thread_flags", _u32),
        ("map_count", _u32),
        ("start_stack", _u64),
        ("main_vma_start", _u64),
        ("main_vma_end", _u64),
        ("main_vma_flags", _u64),
        ("main_prev_end", _u64),
        ("sp", _u64),
        ("sp_vma_start", _u64),
        ("sp_vma_end", _u64),
        ("sp_vma_flags", _u64),
        ("sp_prev_end", _u64),
        ("sp_guard_start", _u64),
        ("sp_guard_end", _u64),
        ("rlim_stack_cur", _u64),
        ("rlim_stack_max", _u64),
        ("guard_gap", _u64),
        ("proof_fd", ctypes.c_int32),
        ("reserved1", _u32),
        # VER2
        ("ss_sp", _u64),
        ("ss_size", _u64),
        ("ss_flags", _u32),
        ("stack_kind", _u32),
        ("addr", _u64),
        ("addr_class", _u32),
        ("reserved2", _u32),
        ("addr_vma_start", _u64),
        ("addr_vma_end", _u64),
        ("addr_vma_flags", _u64),
    ]


def answered_by(q):
    """STACKINFO_LIB_ANSWERED_BY(q): the backend number that answered."""
    return (q.thread_flags & THREAD_USER_MASK) >> LIB_BACKEND_SHIFT
