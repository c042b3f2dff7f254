/*
 * ucontext_offsets.h - offsets in glibc's x86_64 ucontext_t for the
 * assembly files (checked against <ucontext.h> in resume.c).
 * G(i): greg i (<sys/ucontext.h>: R8 0 ... R15 7, RDI 8, RSI 9, RBP 10,
 * RBX 11, RDX 12, RAX 13, RCX 14, RSP 15, RIP 16).
 */
#define G(i) (0x28 + 8 * (i))
#define FPPTR 0xe0   /* uc_mcontext.fpregs */
#define FPMEM 0x1a8  /* __fpregs_mem */
#define MXCSR 0x18   /* in struct _libc_fpstate */
