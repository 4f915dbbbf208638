/* The instruction sets of simd16.h: simd16-loops.h made once per set,
 * each under "#pragma GCC target" for that set, and the choice among them.
 */
#include "simd16.h"

#include <stddef.h>
#include <string.h>

#if (defined (__x86_64__) || defined (__i386__)) && defined (__GNUC__) \
    && !defined (__clang__)
#define CF_SIMD16_HAVE_SETS 1
#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target ("sse2")
#define SIMD_NAME(f) f##_sse2
#define SIMD_LABEL "sse2"
#define V __m128i
#define VBYTES 16
#define LOAD(p) _mm_loadu_si128 ((const __m128i *) (const void *) (p))
#define STORE(p, v) _mm_storeu_si128 ((__m128i *) (void *) (p), (v))
#define SET1(x) _mm_set1_epi32 (x)
#define ZERO() _mm_setzero_si128 ()
#define MADD(acc, a, w) _mm_add_epi32 ((acc), _mm_madd_epi16 ((a), (w)))
#define UNPLO(a, b) _mm_unpacklo_epi16 ((a), (b))
#define UNPHI(a, b) _mm_unpackhi_epi16 ((a), (b))
#define SRA(v, c) _mm_sra_epi32 ((v), (c))
#define PACKS(a, b) _mm_packs_epi32 ((a), (b))
#define PACKUS(a, b) _mm_packus_epi16 ((a), (b))
#define FIX(v) (v)
#include "simd16-loops.h"
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target ("avx2")
#include "simd16-undef.h"
#define SIMD_NAME(f) f##_avx2
#define SIMD_LABEL "avx2"
#define V __m256i
#define VBYTES 32
#define LOAD(p) _mm256_loadu_si256 ((const __m256i *) (const void *) (p))
#define STORE(p, v) _mm256_storeu_si256 ((__m256i *) (void *) (p), (v))
#define SET1(x) _mm256_set1_epi32 (x)
#define ZERO() _mm256_setzero_si256 ()
#define MADD(acc, a, w) _mm256_add_epi32 ((acc), _mm256_madd_epi16 ((a), (w)))
#define UNPLO(a, b) _mm256_unpacklo_epi16 ((a), (b))
#define UNPHI(a, b) _mm256_unpackhi_epi16 ((a), (b))
#define SRA(v, c) _mm256_sra_epi32 ((v), (c))
#define PACKS(a, b) _mm256_packs_epi32 ((a), (b))
#define PACKUS(a, b) _mm256_packus_epi16 ((a), (b))
/* 64-bit words 0 2 1 3 */
#define FIX(v) _mm256_permute4x64_epi64 ((v), 0xd8)
#include "simd16-loops.h"
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target ("avx512f,avx512bw")
#include "simd16-undef.h"
#define SIMD_NAME(f) f##_avx512
#define SIMD_LABEL "avx512"
#define V __m512i
#define VBYTES 64
#define LOAD(p) _mm512_loadu_si512 ((const void *) (p))
#define STORE(p, v) _mm512_storeu_si512 ((void *) (p), (v))
#define SET1(x) _mm512_set1_epi32 (x)
#define ZERO() _mm512_setzero_si512 ()
#define MADD(acc, a, w) _mm512_add_epi32 ((acc), _mm512_madd_epi16 ((a), (w)))
#define UNPLO(a, b) _mm512_unpacklo_epi16 ((a), (b))
#define UNPHI(a, b) _mm512_unpackhi_epi16 ((a), (b))
#define SRA(v, c) _mm512_sra_epi32 ((v), (c))
#define PACKS(a, b) _mm512_packs_epi32 ((a), (b))
#define PACKUS(a, b) _mm512_packus_epi16 ((a), (b))
/* 64-bit words 0 2 4 6 1 3 5 7 */
#define FIX(v) _mm512_permutexvar_epi64 (_mm512_setr_epi64 (0, 2, 4, 6, 1, \
        3, 5, 7), (v))
#include "simd16-loops.h"
#pragma GCC pop_options

/* the same with the multiply and the add in one instruction */
#pragma GCC push_options
#pragma GCC target ("avx512f,avx512bw,avx512vnni")
#undef SIMD_NAME
#undef SIMD_LABEL
#undef MADD
#define SIMD_NAME(f) f##_vnni
#define SIMD_LABEL "vnni"
#define MADD(acc, a, w) _mm512_dpwssd_epi32 ((acc), (a), (w))
#include "simd16-loops.h"
#pragma GCC pop_options
#endif

const CfSimd16 *
cf_simd16_select (const char *cap)
{
#ifdef CF_SIMD16_HAVE_SETS
  /* best first */
  const struct
  {
    const CfSimd16 *simd;
    int supported;
  } sets[] = {
    {&cf_simd_vnni, __builtin_cpu_supports ("avx512bw")
          && __builtin_cpu_supports ("avx512vnni")},
    {&cf_simd_avx512, __builtin_cpu_supports ("avx512bw")},
    {&cf_simd_avx2, __builtin_cpu_supports ("avx2")},
    {&cf_simd_sse2, __builtin_cpu_supports ("sse2")},
  };
  const size_t n_sets = sizeof (sets) / sizeof (sets[0]);
  size_t i, first = 0;

  if (cap && (strcmp (cap, "off") == 0 || strcmp (cap, "0") == 0))
    return NULL;
  for (i = 0; cap && i < n_sets; i++)
    if (strcmp (cap, sets[i].simd->name) == 0)
      first = i;
  for (i = first; i < n_sets; i++)
    if (sets[i].supported)
      return sets[i].simd;
#endif
  return NULL;
}

