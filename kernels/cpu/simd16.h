/* 16-bit multiply-add loops for 8-bit samples, shared by the CPU
 * references of the stencil (both passes) and resize (the vertical pass).
 *
 * simd16-loops.h has the loops, made in simd16.c for SSE2 (the x86-64
 * baseline), AVX2, AVX-512BW and AVX-512 VNNI (vpdpwssd, the multiply and
 * the add in one); cf_simd16_select () picks the CPU's best set at run
 * time (__builtin_cpu_supports), so a baseline build never runs an
 * instruction the CPU lacks. Every sum is exact in 32 bits (the callers
 * bound their weights), so the bytes do not depend on the set. x86 builds
 * with GCC only; elsewhere there is no set and the callers run their
 * scalar code.
 */
#ifndef CF_CPU_SIMD16_H
#define CF_CPU_SIMD16_H

#include <stdint.h>

/* What a horizontal pass writes: its shifted sums as int32 (the
 * intermediate of BOTH in an int32 ring), as int16 (the same in an int16
 * ring), or clamped to 0 .. 255 (an output row). */
typedef enum
{
  CF_OUT_I32,
  CF_OUT_I16,
  CF_OUT_U8
} CfOutKind;

/* The loops of one instruction set (simd16-loops.h); each returns how many
 * samples it did, leaving the rest (less than a block) to the caller. */
typedef struct
{
  const char *name;
  int (*hpass) (const int32_t * pairs, const int32_t * wp, int n_pairs,
      int spp, int n, int32_t init, int shift, CfOutKind kind, void *out);
  int (*vpass) (const int16_t * const *rows, const int32_t * wp, int taps,
      int n, int32_t init, int shift, uint8_t * out);
} CfSimd16;

/* The best set of this CPU at or below @cap, or NULL (no set: the scalar
 * code). @cap: NULL or unknown for the best; "off" or "0" for none; "sse2",
 * "avx2", "avx512" or "vnni" for that set if the CPU has it, else the best
 * below it (tests and measurements). */
const CfSimd16 *cf_simd16_select (const char *cap);

#endif /* CF_CPU_SIMD16_H */
