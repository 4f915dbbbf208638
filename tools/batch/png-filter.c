/* cudafilters-batch: PNG's row filters (png-filter.h).
 *
 * Unfiltering is sequential along a row (each byte needs the one bpp to
 * its left, already unfiltered), so the SSE2 code works a pixel at a time:
 * the pixel's bytes in 16-bit lanes of one register, the left and upper-
 * left pixels carried in registers, two rows side by side where it can.
 * libpng does the same byte by byte, a row at a time.
 * Choosing a filter has no such chain (every input is known), so the SSE2
 * code there takes 16 bytes at a time.
 *
 * SSE2 is part of x86-64, so the SIMD paths need no check at run time;
 * other machines get the plain C of the same rules.
 */
#include "png-filter.h"

#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum
{
  FILTER_NONE,
  FILTER_SUB,
  FILTER_UP,
  FILTER_AVG,
  FILTER_PAETH
};

/* PNG's Paeth predictor of the byte from its left (a), upper (b) and
 * upper-left (c) neighbours. */
static inline int
paeth (int a, int b, int c)
{
  int pa = abs (b - c), pb = abs (a - c), pc = abs (a + b - 2 * c);

  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* ------------------------------------------------------------ unfilter */

/* One row in plain C; @prev is the unfiltered row above (zeros for the
 * first). Any bpp. */
static void
unfilter_row_c (int type, uint8_t * row, const uint8_t * prev, size_t n,
    int bpp)
{
  size_t i;

  switch (type) {
    case FILTER_SUB:
      for (i = bpp; i < n; i++)
        row[i] += row[i - bpp];
      break;
    case FILTER_UP:
      for (i = 0; i < n; i++)
        row[i] += prev[i];
      break;
    case FILTER_AVG:
      for (i = 0; i < (size_t) bpp && i < n; i++)
        row[i] += prev[i] >> 1;
      for (; i < n; i++)
        row[i] += (row[i - bpp] + prev[i]) >> 1;
      break;
    case FILTER_PAETH:
      for (i = 0; i < (size_t) bpp && i < n; i++)
        row[i] += prev[i];
      for (; i < n; i++)
        row[i] += paeth (row[i - bpp], prev[i], prev[i - bpp]);
      break;
    default:
      break;
  }
}

#ifdef __SSE2__
/* A pixel of @bpp (3, 4, 6 or 8) bytes in the 16-bit lanes of a register,
 * and back. The bytes go through a general register in loads and stores
 * of whole words: building the pixel in memory from byte stores and then
 * loading it would stall every pixel (no store forwarding). */
static inline __m128i
load_pixel (const uint8_t * p, const int bpp)
{
  uint64_t v;
  uint32_t w;
  uint16_t h;

  switch (bpp) {
    case 3:
      memcpy (&h, p, 2);
      v = h | (uint32_t) p[2] << 16;
      break;
    case 4:
      memcpy (&w, p, 4);
      v = w;
      break;
    case 6:
      memcpy (&w, p, 4);
      memcpy (&h, p + 4, 2);
      v = w | (uint64_t) h << 32;
      break;
    default:
      memcpy (&v, p, 8);
      break;
  }
  return _mm_unpacklo_epi8 (_mm_cvtsi64_si128 ((long long) v),
      _mm_setzero_si128 ());
}

static inline void
store_pixel (uint8_t * p, __m128i v, const int bpp)
{
  uint64_t u = (uint64_t) _mm_cvtsi128_si64 (_mm_packus_epi16 (v, v));
  uint32_t w = (uint32_t) u;
  uint16_t h = (uint16_t) u;

  switch (bpp) {
    case 3:
      memcpy (p, &h, 2);
      p[2] = (uint8_t) (u >> 16);
      break;
    case 4:
      memcpy (p, &w, 4);
      break;
    case 6:
      memcpy (p, &w, 4);
      h = (uint16_t) (u >> 32);
      memcpy (p + 4, &h, 2);
      break;
    default:
      memcpy (p, &u, 8);
      break;
  }
}

static inline __m128i
abs16 (__m128i v)
{
  return _mm_max_epi16 (v, _mm_sub_epi16 (_mm_setzero_si128 (), v));
}

/* @mask ? @yes : @no, lane by lane (@mask all ones or all zeros) */
static inline __m128i
select128 (__m128i mask, __m128i yes, __m128i no)
{
  return _mm_or_si128 (_mm_and_si128 (mask, yes), _mm_andnot_si128 (mask,
          no));
}

/* The unfiltered pixel of a Sub (@T 1), Average (3) or Paeth (4) row: @x
 * its filtered bytes; @a, @b, @c its left, upper and upper-left
 * neighbours, unfiltered. */
static inline __m128i
unfilter_pixel (const int T, __m128i x, __m128i a, __m128i b, __m128i c)
{
  __m128i pred;

  if (T == FILTER_SUB) {
    pred = a;
  } else if (T == FILTER_AVG) {
    pred = _mm_srli_epi16 (_mm_add_epi16 (a, b), 1);
  } else {
    /* what does not depend on a first, to leave the chain short */
    __m128i p = _mm_sub_epi16 (b, c);
    __m128i pa = abs16 (p);
    __m128i q = _mm_sub_epi16 (a, c);
    __m128i pb = abs16 (q), pc = abs16 (_mm_add_epi16 (p, q));
    __m128i not_a = _mm_or_si128 (_mm_cmpgt_epi16 (pa, pb),
        _mm_cmpgt_epi16 (pa, pc));
    __m128i bc = select128 (_mm_cmpgt_epi16 (pb, pc), c, b);

    pred = select128 (not_a, bc, a);
  }
  return _mm_and_si128 (_mm_add_epi16 (x, pred), _mm_set1_epi16 (0xff));
}

/* The upper pixel at @p, or zeros for Sub (@T), which has none: @p may
 * then be past a row of zeros that was never made. */
static inline __m128i
upper_pixel (const int T, const uint8_t * p, const int bpp)
{
  return T == FILTER_SUB ? _mm_setzero_si128 () : load_pixel (p, bpp);
}

/* One row of Sub, Average or Paeth (@T), a pixel at a time; @n is a
 * multiple of @bpp. */
static inline void
unfilter_row_sse2 (const int T, uint8_t * row, const uint8_t * prev,
    size_t n, const int bpp)
{
  __m128i a = _mm_setzero_si128 (), c = _mm_setzero_si128 ();

  for (size_t i = 0; i < n; i += bpp) {
    __m128i b = upper_pixel (T, prev + i, bpp);

    a = unfilter_pixel (T, load_pixel (row + i, bpp), a, b, c);
    store_pixel (row + i, a, bpp);
    c = b;
  }
}

/* Two rows of Sub, Average or Paeth, @r1 (@T1) below @r0 (@T0), side by
 * side: each step unfilters pixel i of r0 and pixel i - 1 of r1, whose
 * upper and upper-left pixels are r0's, already done and kept in
 * registers. Each row's pixels form a chain (a pixel needs its left one),
 * so one row at a time leaves the CPU waiting on it; two chains at once
 * keep it busy. @n is a multiple of @bpp, at least @bpp. */
static inline void
unfilter_rows2_sse2 (const int T0, const int T1, uint8_t * r0,
    uint8_t * r1, const uint8_t * prev, size_t n, const int bpp)
{
  const __m128i zero = _mm_setzero_si128 ();
  __m128i b0 = upper_pixel (T0, prev, bpp);
  /* r0's pixel to the left (and above r1's next), r0's upper left; r1's
   * left, r1's upper left */
  __m128i a0 = unfilter_pixel (T0, load_pixel (r0, bpp), zero, b0, zero);
  __m128i c0 = b0, a1 = zero, c1 = zero;

  store_pixel (r0, a0, bpp);
  for (size_t i = bpp; i < n; i += bpp) {
    const __m128i b = upper_pixel (T0, prev + i, bpp);
    const __m128i up = unfilter_pixel (T0, load_pixel (r0 + i, bpp), a0, b,
        c0);

    store_pixel (r0 + i, up, bpp);
    a1 = unfilter_pixel (T1, load_pixel (r1 + i - bpp, bpp), a1, a0, c1);
    store_pixel (r1 + i - bpp, a1, bpp);
    c0 = b;
    c1 = a0;
    a0 = up;
  }
  a1 = unfilter_pixel (T1, load_pixel (r1 + n - bpp, bpp), a1, a0, c1);
  store_pixel (r1 + n - bpp, a1, bpp);
}

/* The filter types the SSE2 code takes a pixel at a time */
static inline int
sequential (int type)
{
  return type == FILTER_SUB || type == FILTER_AVG || type == FILTER_PAETH;
}

/* unfilter_row_sse2 () for the type @t0, or unfilter_rows2_sse2 () where
 * @r1 is not NULL, with @bpp and the types as constants. */
static inline void
unfilter_sse2_bpp (int t0, int t1, uint8_t * r0, uint8_t * r1,
    const uint8_t * prev, size_t n, const int bpp)
{
#define ONE(T) unfilter_row_sse2 (T, r0, prev, n, bpp)
#define TWO(T0, T1) unfilter_rows2_sse2 (T0, T1, r0, r1, prev, n, bpp)
#define TWO_BELOW(T0) \
  (t1 == FILTER_SUB ? TWO (T0, FILTER_SUB) : t1 == FILTER_AVG ? \
      TWO (T0, FILTER_AVG) : TWO (T0, FILTER_PAETH))
  if (!r1)
    t0 == FILTER_SUB ? ONE (FILTER_SUB) : t0 == FILTER_AVG ?
        ONE (FILTER_AVG) : ONE (FILTER_PAETH);
  else
    t0 == FILTER_SUB ? TWO_BELOW (FILTER_SUB) : t0 == FILTER_AVG ?
        TWO_BELOW (FILTER_AVG) : TWO_BELOW (FILTER_PAETH);
#undef TWO_BELOW
#undef TWO
#undef ONE
}

/* Whether the SSE2 code takes rows of @n bytes of @bpp-byte pixels, and
 * then unfilters the row @r0 of type @t0 (sequential ()), with @r1 of
 * type @t1 below it where @r1 is not NULL. */
static int
unfilter_sse2 (int t0, int t1, uint8_t * r0, uint8_t * r1,
    const uint8_t * prev, size_t n, int bpp)
{
  if (n == 0 || n % bpp != 0)
    return 0;
#define CASE(B) \
    case B: \
      unfilter_sse2_bpp (t0, t1, r0, r1, prev, n, B); \
      return 1;
  switch (bpp) {
    CASE (3) CASE (4) CASE (6) CASE (8)
    default:
      return 0;
  }
#undef CASE
}
#endif

/* One row: Up in a loop the compiler vectorises, the others by pixel for
 * the multi-byte pixels of 8- and 16-bit colour, in plain C otherwise. */
static void
unfilter_row (int type, uint8_t * row, const uint8_t * prev, size_t n,
    int bpp)
{
  if (type == FILTER_NONE)
    return;
#ifdef __SSE2__
  if (sequential (type) && unfilter_sse2 (type, 0, row, NULL, prev, n, bpp))
    return;
#endif
  unfilter_row_c (type, row, prev, n, bpp);
}

int
cf_png_unfilter_rows (uint8_t * data, size_t rows, size_t row_bytes, int bpp)
{
  uint8_t *zeros = NULL;
  const uint8_t *prev;
  int ret = 0;

  if (rows == 0)
    return 0;
  /* the row above the first: zeros, for which only Up, Average and Paeth
   * look (Average and Paeth of a zero row are then Sub-like) */
  if (data[0] == FILTER_UP || data[0] == FILTER_AVG
      || data[0] == FILTER_PAETH) {
    zeros = calloc (row_bytes ? row_bytes : 1, 1);
    if (!zeros)
      return -1;
  }
  prev = zeros;
  for (size_t y = 0; y < rows; y++) {
    uint8_t *line = data + y * (row_bytes + 1);
    int type = line[0];

    if (type > FILTER_PAETH) {
      ret = -1;
      break;
    }
#ifdef __SSE2__
    /* this row and the next side by side, where both are unfiltered a
     * pixel at a time */
    uint8_t *next = y + 1 < rows ? line + row_bytes + 1 : NULL;
    if (next && sequential (type) && sequential (next[0]) &&
        unfilter_sse2 (type, next[0], line + 1, next + 1, prev, row_bytes,
            bpp)) {
      line[0] = next[0] = FILTER_NONE;
      prev = next + 1;
      y++;
      continue;
    }
#endif
    unfilter_row (type, line + 1, prev, row_bytes, bpp);
    line[0] = FILTER_NONE;
    prev = line + 1;
  }
  free (zeros);
  return ret;
}

/* ------------------------------------------------------- choose filter */

/* libpng's measure of a filtered byte: its distance from 0 as a signed
 * byte (v < 128 ? v : 256 - v) */
static inline unsigned
magnitude (uint8_t v)
{
  return v < 128 ? v : 256 - v;
}

/* Adds to @sum[] the measures of bytes [@from, @to) of @row under each
 * filter, in plain C. */
static void
sum_filters_c (const uint8_t * row, const uint8_t * prev, size_t from,
    size_t to, int bpp, size_t sum[5])
{
  for (size_t i = from; i < to; i++) {
    int x = row[i], b = prev[i];
    int a = i >= (size_t) bpp ? row[i - bpp] : 0;
    int c = i >= (size_t) bpp ? prev[i - bpp] : 0;

    sum[FILTER_NONE] += magnitude (x);
    sum[FILTER_SUB] += magnitude (x - a);
    sum[FILTER_UP] += magnitude (x - b);
    sum[FILTER_AVG] += magnitude (x - ((a + b) >> 1));
    sum[FILTER_PAETH] += magnitude (x - paeth (a, b, c));
  }
}

#ifdef __SSE2__
/* The measures of 16 filtered bytes, summed into the two 64-bit lanes */
static inline __m128i
sum_magnitudes (__m128i acc, __m128i v)
{
  const __m128i zero = _mm_setzero_si128 ();
  __m128i m = _mm_min_epu8 (v, _mm_sub_epi8 (zero, v));

  return _mm_add_epi64 (acc, _mm_sad_epu8 (m, zero));
}

/* Paeth predictors of 8 bytes held in 16-bit lanes */
static inline __m128i
paeth8 (__m128i a, __m128i b, __m128i c)
{
  __m128i p = _mm_sub_epi16 (b, c), q = _mm_sub_epi16 (a, c);
  __m128i pa = abs16 (p), pb = abs16 (q), pc = abs16 (_mm_add_epi16 (p, q));
  __m128i not_a = _mm_or_si128 (_mm_cmpgt_epi16 (pa, pb),
      _mm_cmpgt_epi16 (pa, pc));

  return select128 (not_a, select128 (_mm_cmpgt_epi16 (pb, pc), c, b), a);
}

/* Bytes [16, 16 + 16 k) of the row, k as many as fit; returns where it
 * stopped. The first 16 (where the left neighbours may lie before the
 * row) and the rest are plain C. */
static size_t
sum_filters_sse2 (const uint8_t * row, const uint8_t * prev, size_t n,
    int bpp, size_t sum[5])
{
  const __m128i zero = _mm_setzero_si128 (), one = _mm_set1_epi8 (1);
  __m128i acc[5];
  uint64_t lanes[2];
  size_t i;

  for (int k = 0; k < 5; k++)
    acc[k] = zero;
  for (i = 16; i + 16 <= n; i += 16) {
    __m128i x = _mm_loadu_si128 ((const __m128i *) (row + i));
    __m128i a = _mm_loadu_si128 ((const __m128i *) (row + i - bpp));
    __m128i b = _mm_loadu_si128 ((const __m128i *) (prev + i));
    __m128i c = _mm_loadu_si128 ((const __m128i *) (prev + i - bpp));
    /* (a + b) >> 1: pavgb rounds up, so take back the odd sums' 1 */
    __m128i avg = _mm_sub_epi8 (_mm_avg_epu8 (a, b),
        _mm_and_si128 (_mm_xor_si128 (a, b), one));
    __m128i lo = paeth8 (_mm_unpacklo_epi8 (a, zero),
        _mm_unpacklo_epi8 (b, zero), _mm_unpacklo_epi8 (c, zero));
    __m128i hi = paeth8 (_mm_unpackhi_epi8 (a, zero),
        _mm_unpackhi_epi8 (b, zero), _mm_unpackhi_epi8 (c, zero));

    acc[FILTER_NONE] = sum_magnitudes (acc[FILTER_NONE], x);
    acc[FILTER_SUB] = sum_magnitudes (acc[FILTER_SUB], _mm_sub_epi8 (x, a));
    acc[FILTER_UP] = sum_magnitudes (acc[FILTER_UP], _mm_sub_epi8 (x, b));
    acc[FILTER_AVG] = sum_magnitudes (acc[FILTER_AVG], _mm_sub_epi8 (x, avg));
    acc[FILTER_PAETH] = sum_magnitudes (acc[FILTER_PAETH],
        _mm_sub_epi8 (x, _mm_packus_epi16 (lo, hi)));
  }
  for (int k = 0; k < 5; k++) {
    _mm_storeu_si128 ((__m128i *) lanes, acc[k]);
    sum[k] += lanes[0] + lanes[1];
  }
  return i;
}
#endif

int
cf_png_choose_filter (const uint8_t * row, const uint8_t * prev,
    size_t row_bytes, int bpp)
{
  size_t sum[5] = { 0 }, done = 0;
  int best = FILTER_NONE;

#ifdef __SSE2__
  if (row_bytes >= 32) {
    sum_filters_c (row, prev, 0, 16, bpp, sum);
    done = sum_filters_sse2 (row, prev, row_bytes, bpp, sum);
  }
#endif
  sum_filters_c (row, prev, done, row_bytes, bpp, sum);
  /* libpng tries None, Sub, Up, Average, Paeth in this order and keeps a
   * later one only when its sum is smaller */
  for (int k = FILTER_SUB; k <= FILTER_PAETH; k++)
    if (sum[k] < sum[best])
      best = k;
  return best;
}
