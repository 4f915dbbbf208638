/* Function multiversioning for the CPU references' hot loops.
 *
 * x86-64 builds target the baseline (SSE2) by default. A function marked
 * CF_CLONES_AVX2 is compiled twice, for the baseline and for AVX2, and the
 * loader picks the clone the CPU runs (GCC's target_clones, an ifunc): the
 * auto-vectorised loops then take 256-bit vectors where AVX2 is present and
 * never an illegal instruction where it is not. CF_CLONES_FMA does the same
 * for FMA (fma () inline, cpu/fir.c). The functions they call are inlined
 * into each clone, so the hot loop is a static inline helper and the marked
 * function its caller. Both clones compute the very same integers (or
 * exact doubles): the bits do not depend on the clone.
 *
 * Elsewhere (another architecture, a compiler without target_clones, or a
 * build for AVX2 already) the marks are empty, and so they are with
 * -DCF_NO_CLONES (to test the baseline code on a CPU with AVX2).
 */
#ifndef CF_CPU_CLONES_H
#define CF_CPU_CLONES_H

#if defined (__x86_64__) && defined (__GNUC__) && defined (__has_attribute) \
    && !defined (CF_NO_CLONES)
#if __has_attribute (target_clones)
#ifndef __AVX2__
#define CF_CLONES_AVX2 __attribute__ ((target_clones ("avx2", "default")))
#endif
#ifndef __FMA__
#define CF_CLONES_FMA __attribute__ ((target_clones ("fma", "default")))
#endif
#endif
#endif

#ifndef CF_CLONES_AVX2
#define CF_CLONES_AVX2
#endif
#ifndef CF_CLONES_FMA
#define CF_CLONES_FMA
#endif

#endif /* CF_CPU_CLONES_H */
