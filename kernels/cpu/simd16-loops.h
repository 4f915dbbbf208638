/* The 16-bit multiply-add passes of simd16.h for 8-bit samples, one
 * instruction set per inclusion (a template: no include guard).
 *
 * simd16.c includes this once per x86 instruction set, each time under
 * "#pragma GCC target" for that set, with these defined:
 *   SIMD_NAME(f)      f's name for this set (f_sse2, f_avx2, ...)
 *   SIMD_LABEL        the set's name as a string ("avx2")
 *   V                 the vector type (__m128i, __m256i, __m512i)
 *   VBYTES            its bytes (16, 32, 64)
 *   LOAD(p), STORE(p, v)          unaligned
 *   SET1(x)           every 32-bit lane x
 *   ZERO()
 *   MADD(acc, a, w)   acc + pmaddwd (a, w): each 32-bit lane adds
 *                     a.lo * w.lo + a.hi * w.hi (16-bit halves, signed)
 *   UNPLO(a, b), UNPHI(a, b)      punpck[lh]wd (within 128-bit lanes)
 *   SRA(v, c)         arithmetic right shift of 32-bit lanes by the count
 *                     in the low 64 bits of the __m128i c
 *   PACKS(a, b)       packssdw (within 128-bit lanes)
 *   PACKUS(a, b)      packuswb (within 128-bit lanes)
 *   FIX(v)            the 64-bit permutation that puts a pack's result of
 *                     two vectors in natural order back in order: a pack
 *                     works within each 128-bit lane, taking 64 bits of
 *                     its first operand, then 64 of its second, so its
 *                     64-bit words come out as a0 b0 a1 b1 ...; FIX makes
 *                     them a0 a1 ... b0 b1 ... (the identity for 128 bits)
 *
 * Every sum is exact in 32 bits (the caller checked the weights' bound,
 * stencil.c's narrow_*; resize.h's bounds), and each output is rounded, shifted and clamped
 * as the scalar code does, so the bytes are the same whichever set runs.
 * The packs saturate: to int16 for an intermediate the bound keeps within
 * it (no saturation happens), then to 0 .. 255, which is the clamp of an
 * 8-bit value (max 255).
 */

/* Horizontal pass of one row, @n samples: sum_m of the pair of taps
 * (2m, 2m + 1) of weights @wp[m] (w[2m] in the low 16 bits, w[2m + 1] in
 * the high, 0 past the last tap) times @pairs[j + 2m spp], the two samples
 * (in[j + 2m spp], in[j + (2m + 1) spp]) side by side; @init (the
 * rounding) added, then shifted right by @shift and written as @kind says.
 * Samples from @n rounded down to a whole block are left to the caller. */
static int
SIMD_NAME (cf_hpass) (const int32_t * pairs, const int32_t * wp,
    int n_pairs, int spp, int n, int32_t init, int shift, CfOutKind kind,
    void *out)
{
  /* a block: 4 vectors of 32-bit sums, VBYTES outputs */
  const int lanes = VBYTES / 4, block = VBYTES;
  const __m128i count = _mm_cvtsi32_si128 (shift);
  int j, m;

  for (j = 0; j + block <= n; j += block) {
    V a0 = SET1 (init), a1 = a0, a2 = a0, a3 = a0;

    for (m = 0; m < n_pairs; m++) {
      const V w = SET1 (wp[m]);
      const int32_t *p = pairs + j + 2 * m * spp;

      a0 = MADD (a0, LOAD (p), w);
      a1 = MADD (a1, LOAD (p + lanes), w);
      a2 = MADD (a2, LOAD (p + 2 * lanes), w);
      a3 = MADD (a3, LOAD (p + 3 * lanes), w);
    }
    a0 = SRA (a0, count);
    a1 = SRA (a1, count);
    a2 = SRA (a2, count);
    a3 = SRA (a3, count);
    if (kind == CF_OUT_I32) {
      int32_t *o = (int32_t *) out + j;

      STORE (o, a0);
      STORE (o + lanes, a1);
      STORE (o + 2 * lanes, a2);
      STORE (o + 3 * lanes, a3);
    } else {
      const V x = FIX (PACKS (a0, a1)), y = FIX (PACKS (a2, a3));

      if (kind == CF_OUT_I16) {
        int16_t *o = (int16_t *) out + j;

        STORE (o, x);
        STORE (o + VBYTES / 2, y);
      } else {
        STORE ((uint8_t *) out + j, FIX (PACKUS (x, y)));
      }
    }
  }
  return j;
}

/* One pair of rows of the vertical pass (@b NULL: zeros) into the sums
 * of a block: rows a and b interleaved, low and high halves of each
 * 128-bit lane apart, times the weights (w_a, w_b) in @w. */
static inline __attribute__ ((always_inline)) void
SIMD_NAME (cf_vstep) (const int16_t * a, const int16_t * b, int32_t wp,
    V * l0, V * h0, V * l1, V * h1)
{
  const V w = SET1 (wp), a0 = LOAD (a), a1 = LOAD (a + VBYTES / 2);
  const V b0 = b ? LOAD (b) : ZERO (), b1 = b ? LOAD (b + VBYTES / 2) :
      ZERO ();

  *l0 = MADD (*l0, UNPLO (a0, b0), w);
  *h0 = MADD (*h0, UNPHI (a0, b0), w);
  *l1 = MADD (*l1, UNPLO (a1, b1), w);
  *h1 = MADD (*h1, UNPHI (a1, b1), w);
}

/* Vertical pass of one output row, @n samples: sum_t @w[t] @rows[t][j]
 * over @taps rows of int16 values, @wp the weights in pairs as above;
 * @init added, shifted right by @shift, clamped to 0 .. 255 into @out.
 * Each pair of rows is interleaved (punpck[lh]wd) so that one pmaddwd
 * takes two taps; the interleaving and the packs both stay within 128-bit
 * lanes, so the 16-bit results come out in order. Returns the samples
 * done, as above. */
static int
SIMD_NAME (cf_vpass) (const int16_t * const *rows, const int32_t * wp,
    int taps, int n, int32_t init, int shift, uint8_t * out)
{
  /* a block: 2 vectors of 16-bit inputs a row, VBYTES outputs */
  const int block = VBYTES;
  const __m128i count = _mm_cvtsi32_si128 (shift);
  int j, t;

  for (j = 0; j + block <= n; j += block) {
    V l0 = SET1 (init), h0 = l0, l1 = l0, h1 = l0;
    V x, y;

    for (t = 0; t + 1 < taps; t += 2)
      SIMD_NAME (cf_vstep) (rows[t] + j, rows[t + 1] + j, wp[t / 2], &l0,
          &h0, &l1, &h1);
    if (t < taps)               /* the odd last tap, with a row of zeros */
      SIMD_NAME (cf_vstep) (rows[t] + j, NULL, wp[t / 2], &l0, &h0, &l1,
          &h1);
    x = PACKS (SRA (l0, count), SRA (h0, count));
    y = PACKS (SRA (l1, count), SRA (h1, count));
    STORE (out + j, FIX (PACKUS (x, y)));
  }
  return j;
}

static const CfSimd16 SIMD_NAME (cf_simd) = {
  SIMD_LABEL, SIMD_NAME (cf_hpass), SIMD_NAME (cf_vpass)
};
