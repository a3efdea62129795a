/* The application's main must find the stack it would find without us.
 *
 * A preloaded library's constructors run from the dynamic loader before
 * __libc_start_main calls main, at about the depth main's frame will later
 * occupy. Whatever they leave there (return addresses, saved registers, the
 * settings parser's buffers) becomes the initial contents of main's
 * uninitialized locals. Programs read such locals more often than they should:
 * MPICH's test pt2pt/rqstatus checks MPI_ERROR of a status that Open MPI's
 * MPI_Request_get_status(MPI_REQUEST_NULL) never writes, and passed natively
 * (the page was fresh, so zero) but failed under mpiscope, in every mode.
 *
 * Not only memory: the first lazily bound call of __libc_start_main saves
 * the vector registers on that stack (_dl_runtime_resolve_xsavec), so what
 * our constructors left in them (string operations fill them) lands in
 * main's frame too.
 *
 * So the last of the library's constructors clears the stack below itself,
 * a fixed span deeper than any of our constructors reaches, and then the
 * vector registers (x86-64: VZEROALL where AVX exists, else the sixteen
 * XMM registers; and where AVX-512 exists ZMM16-31 too, which glibc's EVEX
 * string functions use precisely because VZEROUPPER leaves them alone). Every other
 * constructor of the library is declared MSC_CONSTRUCTOR (module.h), which
 * gives it a lower priority number: the linker places prioritized
 * constructors in ascending order ahead of unprioritized ones, so this one,
 * with the highest number, runs after them all. The cost is one memset of
 * MSC_SCRUB_BYTES per process, at load time.
 */
#include <string.h>


enum { MSC_SCRUB_BYTES = 64 * 1024 };

/* noinline and a volatile buffer: the compiler may neither fold the frame
 * into the caller nor drop the stores as dead. */
__attribute__((noinline)) static void scrub_below(void)
{
    volatile unsigned char span[MSC_SCRUB_BYTES];
    memset((unsigned char *)span, 0, sizeof span);
    __asm__ volatile("" : : "r"(span) : "memory");
}

static void scrub_vector_registers(void)
{
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f"))
        /* Not in the clobbers: the compiler allocates them only with AVX-512
         * enabled, which this file is not built with. */
        __asm__ volatile("vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"
                         "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"
                         "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"
                         "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"
                         "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"
                         "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"
                         "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"
                         "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31" ::
                             : "memory");
    if (__builtin_cpu_supports("avx")) {
        __asm__ volatile("vzeroall" : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                         "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                         "xmm15");
        return;
    }
    __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\t"
                     "pxor %%xmm3, %%xmm3\n\tpxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
                     "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\tpxor %%xmm8, %%xmm8\n\t"
                     "pxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
                     "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\t"
                     "pxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"
                     :
                     :
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                       "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#endif
}

__attribute__((constructor(65535))) static void stack_scrub(void)
{
    scrub_below();
    scrub_vector_registers();
}
