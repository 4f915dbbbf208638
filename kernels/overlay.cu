/* The statistics overlay on the GPU (see overlay.h): one launch for every
 * plane of the frame. Each plane's rectangle (the panel's samples, or the
 * whole plane of channel 0 when zebra is on) is cut into tiles of
 * CF_OVERLAY_BLOCK_W x (CF_OVERLAY_BLOCK_H x CF_OVERLAY_THREAD_ROWS) = 32 x
 * 64 samples, one block of 256 threads per tile (per QUAD_GROUP tiles side
 * by side in the parts of a plane of zebra on 1-byte pixels away from the
 * panel: Part.group), the rectangles' blocks one after the other in a
 * one-dimensional grid (Part.first_block). A thread
 * owns one column of its tile and every CF_OVERLAY_BLOCK_H-th row of it (a
 * warp is a row of 32 neighbouring pixels): 8 pixels, which it loads, all
 * of them at once, before the setup below, so that their memory latency
 * overlaps it (8-byte pixels after it: draw_tile () says why).
 *
 * Per-frame data: each block works out only what its tile needs, into
 * shared memory (Shared), each part by its own warps so that the parts run
 * side by side; a tile away from the panel (zebra only) skips all of it,
 * and on 1-byte pixels (the luma of the YUV formats, GRAY8) draws four
 * pixels a word, a block's QUAD_GROUP tiles at once (zebra_quads ()).
 * - Text (a tile that reaches the text rows and columns): warp 3 first,
 *   before it loads its own pixels, lane l formats line l from the device
 *   CfStats, then each lane works out the glyph pixels of its column, every
 *   line's in one word (text_column ()).
 * - Histogram (a tile that meets it): thread t loads bin t of each graph
 *   channel before its pixels, into shared memory; after a barrier, warps
 *   0 .. 2 each find the largest bin of every graph channel from there (a
 *   shuffle reduction, no atomics) and warp c the height of channel c's
 *   bar in each of the tile's 32 columns.
 * - Rows: the last 64 threads, one per tile row, work out what the row is
 *   in the panel (ovl_row ()); each thread works out its column
 *   (ovl_column ()) in registers.
 * A second barrier, then each thread draws its pixels exactly as
 * cf_overlay_cpu () does: zebra, then the panel's palette index
 * (ovl_index () of its column's and the row's parts, with the column's
 * bars and glyphs), blended into the colour samples; it writes a pixel
 * back only when it changed. The text, bar and panel rules are the C
 * reference's own code (overlay-shared.h, included by both); the tests
 * compare the bytes. The grid is done when every block has drawn its tile:
 * blocks share nothing, no workspace, no atomics.
 *
 * A pixel is one word of its bytes (little-endian, as in memory): 32 bits,
 * or 64 for the 8-byte pixels of RGBA64 and kin. Planes whose pixels are
 * aligned words (Plane.word) are read and written a word at a time,
 * through code compiled for that size (draw_tile<W, T>), with no test of
 * the layout per pixel: 1, 2 or 4 bytes of 8-bit samples (Y, NV12's UV,
 * RGBA and kin), 8 bytes of four 16-bit samples (RGBA64); the rest (RGB,
 * the planes of 16-bit YUV and GRAY16_LE, unaligned planes) byte by byte.
 * The palette is packed per plane on the host into such words, each value
 * shifted into place (value << lsb).
 *
 * Blending is on values (overlay.h). An 8-bit sample is its value, so the
 * 8-bit paths blend the word's samples as they are, two at a time; 16-bit
 * samples are blended one at a time on (sample >> lsb) & (2^bits - 1) and
 * written back shifted, which clears P010's low bits in the pixels drawn;
 * a pixel the overlay leaves is not stored, so its bytes stay as they were.
 *
 * The plan travels by value as a __grid_constant__ kernel argument (about
 * 0.6 KiB: palette and font), with the planes' layouts and packed colours:
 * no device memory and no copy per frame.
 */
#include "overlay.h"
#include "cuda-common.cuh"

#include <cuda_runtime.h>

#include <stdint.h>
#include <type_traits>

namespace {

/* One plane's share of the launch: its layout and colours. */
struct Plane {
  uint8_t *data;
  size_t pitch;
  int shift_x, shift_y;
  int pixel_bytes, sample_bytes, samples;
  int word;                     /* 4, 2 or 1: every pixel is one aligned word
                                 * of that many bytes of 8-bit samples; 8:
                                 * of four 16-bit samples; 0: read byte by
                                 * byte */
  int bits, lsb;                /* of a value in a sample (format.h) */
  uint32_t value_mask;          /* 2^bits - 1 */
  int zebra;                    /* the plane of channel 0, zebra on */
  int zebra_words;              /* zebra on 1-byte pixels of one colour
                                 * sample in aligned words: the tiles away
                                 * from the panel take zebra_quads () */
  int zebra_shift[3];           /* first bit of the R, G, B (Y, gray) sample
                                 * in a pixel's word, -1: none */
  /* 8-bit words of three colour samples: the luma weights 77, 150, 29 in
   * the R, G, B bytes, so that luma = dp4a (word, weights, 128) >> 8; 0
   * otherwise */
  uint32_t zebra_weights;
  uint64_t colour_mask;         /* the bits of the colour samples */
  uint64_t colour[CF_OVERLAY_COLOURS];  /* each palette entry as a pixel's
                                         * word, colour samples only */
  uint32_t background[4];       /* c a + 128 of the background, see paint () */
};

/* A rectangle of a plane drawn by consecutive blocks of the grid: the
 * plane's (the panel's samples, or the whole plane with zebra), or a part
 * of it (cut_quads ()). */
struct Part {
  int plane;                    /* of Args.plane */
  int x0, y0, x1, y1;           /* plane samples */
  int tiles_x;                  /* tiles across the rectangle */
  int group;                    /* tiles side by side a block: QUAD_GROUP
                                 * in the parts of zebra words away from
                                 * the panel, else 1 */
  int blocks_x;                 /* blocks across the rectangle */
  int first_block;              /* the block of its first tiles */
};

/* Args.part: a part a plane, a plane of zebra words in up to five */
constexpr int MAX_PARTS = CF_MAX_PLANES + 4;

struct Args {
  CfOverlayPlan plan;
  /* ceil (2^32 / zebra_period): the stripe of z = lx + ly (< 2^16) is
   * __umulhi (z, magic), exact while z period < 2^32; 0 for a period past
   * every z */
  uint32_t zebra_magic;
  Plane plane[CF_MAX_PLANES];   /* those with something to draw */
  int n_planes;
  Part part[MAX_PARTS];         /* their rectangles, in the grid's order */
  int n_parts;
  const CfStats *stats;
  int fps_x10;
};

#include "overlay-shared.h"

constexpr int WARP = 32;
constexpr int TILE_W = CF_OVERLAY_BLOCK_W;
constexpr int ROWS = CF_OVERLAY_THREAD_ROWS;
constexpr int TILE_H = CF_OVERLAY_BLOCK_H * ROWS;
constexpr int THREADS = CF_OVERLAY_BLOCK_W * CF_OVERLAY_BLOCK_H;
/* Resident blocks per multiprocessor asked of the compiler, so at most 64
 * registers a thread (left alone it takes about 78: 3 blocks). The default
 * panel at 2160p is 432 tiles of RGBA, 540 of NV12, for the 132
 * multiprocessors of an H100: with 3 a second wave of blocks would double
 * the time. */
constexpr int BLOCKS_PER_SM = 4;
/* the setup's roles, by warp */
constexpr int BAR_THREADS = 3 * WARP;   /* warps 0 .. 2 */
constexpr int TEXT_WARP = 3;
constexpr int ROW_THREAD = THREADS - TILE_H;    /* the last TILE_H threads */
/* Tiles side by side a block in the parts of a plane of Plane.zebra_words
 * away from the panel (cut_quads ()): a warp's words are a row of 128
 * bytes.
 * 2160p NV12's luma with the element's default panel (30% x 35%, top
 * left): 1397 blocks instead of 4080, under three waves of the 528 an
 * H100 holds (4 a multiprocessor) instead of eight. */
constexpr int QUAD_GROUP = 4;

static_assert (TILE_W == WARP, "a warp is one row of a tile");
static_assert (BAR_THREADS <= TEXT_WARP * WARP
    && (TEXT_WARP + 1) * WARP <= ROW_THREAD && ROW_THREAD % WARP == 0,
    "the setup's roles are separate warps");
static_assert (CF_STATS_BINS == THREADS, "a graph bin per thread");
static_assert (CF_OVERLAY_MAX_LINES * CF_OVERLAY_CELL_H <= 32,
    "every line's glyph rows in one word (text_column ())");
static_assert (CF_OVERLAY_MAX_LINES <= WARP, "a text line per lane");
static_assert (CF_STATS_BINS % WARP == 0, "whole bins per lane");

/* What a block keeps in shared memory: the per-frame data of its tile. */
struct Shared {
  uint32_t bin[3][CF_STATS_BINS];       /* graph bins (bin_value ()) */
  int bar[3][TILE_W];           /* column_bar () per channel and column */
  uint32_t glyph[TILE_W];       /* text_column () per column */
  CfOvlRow row[TILE_H];
  char text[CF_OVERLAY_MAX_LINES][CF_OVERLAY_LINE_CHARS + 1];
  int len[CF_OVERLAY_MAX_LINES];
};

/* A pixel as a word T of its bytes, by W (Plane.word): 4, 2 or 1, one
 * aligned word of that many bytes of 8-bit samples, each its own value
 * (bits 8, lsb 0); 8, one aligned word of four 16-bit samples; 0, anything
 * else, read byte by byte. T is 32 bits wide except where a pixel has 8
 * bytes (W = 8, or W = 0 on RGBA64). The kernel is compiled once per pair:
 * on the per-pixel path the layout is no test, and no pixel of at most 4
 * bytes pays for 64-bit words. */
__device__ constexpr bool
byte_word (int w)
{
  return w == 1 || w == 2 || w == 4;
}

template <int W, typename T> __device__ __forceinline__ T
load_pixel (const uint8_t * p, int pixel_bytes)
{
  T v;

  if (W == 8)
    return (T) * (const uint64_t *) p;
  if (W == 4)
    return *(const uint32_t *) p;
  if (W == 2)
    return *(const uint16_t *) p;
  v = p[0];
#pragma unroll
  for (int k = 1; k < (int) sizeof (T); k++)
    if (W == 0 && k < pixel_bytes)
      v |= (T) p[k] << 8 * k;
  return v;
}

template <int W, typename T> __device__ __forceinline__ void
store_pixel (uint8_t * p, T v, int pixel_bytes)
{
  if (W == 8) {
    *(uint64_t *) p = v;
  } else if (W == 4) {
    *(uint32_t *) p = (uint32_t) v;
  } else if (W == 2) {
    *(uint16_t *) p = (uint16_t) v;
  } else {
    p[0] = (uint8_t) v;
#pragma unroll
    for (int k = 1; k < (int) sizeof (T); k++)
      if (W == 0 && k < pixel_bytes)
        p[k] = (uint8_t) (v >> 8 * k);
  }
}

/* This thread's @rows pixels of a tile from @first + @start, @step bytes
 * apart (draw_tile ()): all the loads in flight at once. */
template <int W, typename T, typename Off> __device__ __forceinline__ void
load_rows (T (&px)[ROWS], uint8_t * first, Off start, Off step, int rows,
    int pb)
{
#pragma unroll
  for (int i = 0; i < ROWS; i++)
    px[i] = i * CF_OVERLAY_BLOCK_H < rows ?
        load_pixel<W, T> (first + (start + i * step), pb) : 0;
}

/* The value of the sample at bit @shift of pixel @v: on the 8-bit word
 * paths the byte itself, otherwise (sample >> lsb) & (2^bits - 1) (an
 * 8-bit sample's lsb is 0, its mask 0xff). */
template <int W, typename T> __device__ __forceinline__ uint32_t
sample_value (const Plane & pl, T v, int shift)
{
  if (byte_word (W))
    return (uint32_t) (v >> shift) & 0xff;
  return (uint32_t) (v >> shift) >> pl.lsb & pl.value_mask;
}

/* What zebra needs of the plan and the plane, read once into registers
 * before a thread's pixels. */
template <typename T> struct Zebra {
  uint32_t weights;             /* Plane.zebra_weights */
  int shift[3];
  bool colour3;                 /* three colour samples: luma weighted */
  int level_shift;              /* value bits - 8 */
  uint32_t level;
  bool zero;
  T keep, high, low;            /* ~colour mask, the two colours' words */
};

template <int W, typename T> __device__ __forceinline__ Zebra<T>
zebra_setup (const CfOverlayPlan * plan, const Plane & pl)
{
  Zebra<T> z;

  z.weights = pl.zebra_weights;
#pragma unroll
  for (int c = 0; c < 3; c++)
    z.shift[c] = pl.zebra_shift[c];
  z.colour3 = pl.samples >= 3;
  z.level_shift = byte_word (W) ? 0 : pl.bits - 8;
  z.level = (uint32_t) plan->zebra_level;
  z.zero = plan->zebra_zero;
  z.keep = ~(T) pl.colour_mask;
  z.high = (T) pl.colour[CF_OVERLAY_ZEBRA_HIGH];
  z.low = (T) pl.colour[CF_OVERLAY_ZEBRA_ZERO];
  return z;
}

/* Zebra on pixel @v of the plane of channel 0, on a stripe:
 * draw_pixel () of the C reference on the values of the word. Words of
 * 8-bit samples weigh their three colour bytes in one dp4a. */
template <int W, typename T> __device__ __forceinline__ T
zebra (const Plane & pl, const Zebra<T> & z, T v)
{
  uint32_t luma;

  if (byte_word (W) && z.weights) {
    luma = __dp4a ((uint32_t) v, z.weights, 128u) >> 8;
  } else {
    uint32_t rgb[3];

#pragma unroll
    for (int c = 0; c < 3; c++)
      rgb[c] = z.shift[c] >= 0 ? sample_value<W> (pl, v, z.shift[c]) : 0;
    luma = z.colour3 ?
        (77 * rgb[0] + 150 * rgb[1] + 29 * rgb[2] + 128) >> 8 : rgb[0];
  }
  if (luma >> z.level_shift >= z.level)
    return (v & z.keep) | z.high;
  if (z.zero && luma == 0)
    return (v & z.keep) | z.low;
  return v;
}

/* The background blended into the 8-bit samples of @w (at most four):
 * two at a time, in the 16-bit halves of a word (even samples, then odd):
 * in (256 - a) + c a + 128 <= 255 * 256 + 128 < 65536, so no carry crosses
 * a half; background[] holds c a + 128 of each half. */
__device__ __forceinline__ uint32_t
blend_bytes (const Plane & pl, uint32_t w, uint32_t keep)
{
  const uint32_t even = (w & 0x00ff00ff) * keep + pl.background[0];
  const uint32_t odd = (w >> 8 & 0x00ff00ff) * keep + pl.background[1];

  return (even >> 8 & 0x00ff00ff) | (odd & 0xff00ff00);
}

/* The same for the 16-bit samples of @v, one at a time on their values,
 * shifted back into place (the bits outside a value 0); background[k]
 * holds c a + 128 of sample k (0 past the pixel's, whose results the
 * colour mask drops). */
template <typename T> __device__ __forceinline__ T
blend_values (const Plane & pl, T v, uint32_t keep)
{
  T c = 0;

#pragma unroll
  for (int k = 0; k < (int) sizeof (T) / 2; k++) {
    const uint32_t in = (uint32_t) (v >> 16 * k) >> pl.lsb & pl.value_mask;

    c |= (T) ((in * keep + pl.background[k]) >> 8 << pl.lsb) << 16 * k;
  }
  return c;
}

/* Pixel @v's colour samples blended into palette entry @idx:
 * out = (in (256 - a) + c a + 128) >> 8 on values (overlay.h). a = 256
 * (bars, text) gives c itself: the entry's word. The background has
 * a = 256 - @keep. */
template <int W, typename T> __device__ __forceinline__ T
paint (const Plane & pl, T v, int idx, uint32_t keep)
{
  T c;

  if (byte_word (W) || (W == 0 && pl.sample_bytes == 1))
    c = blend_bytes (pl, (uint32_t) v, keep);
  else
    c = blend_values (pl, v, keep);
  c = idx == CF_OVERLAY_BACKGROUND ? c : (T) pl.colour[idx];
  return (v & ~(T) pl.colour_mask) | (c & (T) pl.colour_mask);
}

/* Zebra alone on the G tiles side by side from (@x0, @y0) of a plane of
 * 1-byte pixels of one colour sample (Plane.zebra_words: plane 0 of GRAY8
 * and the 8-bit YUV formats) outside the panel, four pixels a thread at a
 * time in a word: a warp takes a row of four tiles (G = QUAD_GROUP) or
 * four rows of one, where the pixel path takes a row of one.
 * Per byte, zebra () of the pixel path: on a stripe, luma >= level gives
 * the high colour, else with zebra_zero luma 0 the low one; bytes past
 * the rectangle's right edge stay as they are. */
template <int G> __device__ __forceinline__ void
zebra_quads (const Args & a, const Plane & pl, const Part & part, int x0,
    int y0)
{
  constexpr int kWords = G * TILE_W / 4;        /* a row of G tiles' */
  constexpr int kPass = THREADS / kWords;       /* rows a pass */
  constexpr int kN = TILE_H / kPass;            /* words a thread */
  static_assert (TILE_W % 4 == 0 && THREADS % kWords == 0
      && TILE_H % kPass == 0, "whole words and rows");
  const CfOverlayPlan *plan = &a.plan;
  const int tid = threadIdx.x;
  const int x = x0 + 4 * (tid % kWords), r0 = tid / kWords;
  if (x >= part.x1)
    return;
  const int n = part.x1 - x;
  const uint32_t inside = n >= 4 ? ~0u : (1u << 8 * n) - 1;
  const uint32_t level = (uint32_t) plan->zebra_level * 0x01010101u;
  const uint32_t high = (uint32_t) pl.colour[CF_OVERLAY_ZEBRA_HIGH] *
      0x01010101u;
  const uint32_t low = (uint32_t) pl.colour[CF_OVERLAY_ZEBRA_ZERO] *
      0x01010101u;
  /* the luma x of byte 0 plus the row's luma y: the stripe's z */
  const uint32_t zx = (uint32_t) (x << pl.shift_x);
  uint8_t *const first = pl.data + (size_t) y0 * pl.pitch + (size_t) x;
  uint32_t v[kN];

#pragma unroll
  for (int i = 0; i < kN; i++) {
    const int r = r0 + i * kPass;
    v[i] = y0 + r < part.y1 ? *(const uint32_t *) (first + (size_t) r *
        pl.pitch) : 0;
  }
#pragma unroll
  for (int i = 0; i < kN; i++) {
    const int r = r0 + i * kPass;
    if (y0 + r >= part.y1)
      break;
    const uint32_t z = zx + (uint32_t) ((y0 + r) << pl.shift_y);
    uint32_t stripe = 0;

#pragma unroll
    for (int k = 0; k < 4; k++)
      if ((__umulhi (z + (k << pl.shift_x), a.zebra_magic) & 1) == 0)
        stripe |= 0xffu << 8 * k;
    stripe &= inside;
    const uint32_t hi = __vcmpgeu4 (v[i], level) & stripe;
    const uint32_t zero = plan->zebra_zero ?
        __vcmpeq4 (v[i], 0) & stripe & ~hi : 0;
    const uint32_t out = (v[i] & ~(hi | zero)) | (high & hi) | (low & zero);

    if (out != v[i])
      *(uint32_t *) (first + (size_t) r * pl.pitch) = out;
  }
}

/* Whether the luma pixels @lx0 .. @lx1, rows @ly0 .. @ly1, meet the
 * panel. */
__device__ __forceinline__ bool
meets_panel (const CfOverlayPlan * plan, int lx0, int lx1, int ly0, int ly1)
{
  return lx1 >= plan->panel_x && lx0 < plan->panel_x + plan->panel_width
      && ly1 >= plan->panel_y && ly0 < plan->panel_y + plan->panel_height;
}

/* The whole work of a block on tile @tile of the part @part of a plane of
 * word W, pixels T (see the top). */
template <int W, typename T> __device__ __forceinline__ void
draw_tile (const Args & a, const Plane & pl, const Part & part, Shared & s,
    int tile)
{
  const CfOverlayPlan *plan = &a.plan;
  const int tid = threadIdx.x, lane = tid % WARP, warp = tid / WARP;
  const int pb = W ? W : pl.pixel_bytes;
  const int sx = pl.shift_x, sy = pl.shift_y;
  /* W > 0: byte offsets in the tile fit 32 bits (the launcher sees to it),
   * which spares registers; W = 0, any pitch */
  typedef typename std::conditional < W == 0, size_t, uint32_t >::type Off;
  const Off step = (Off) (CF_OVERLAY_BLOCK_H * pl.pitch);
  const int x0 = part.x0 + tile % part.tiles_x * TILE_W;
  const int y0 = part.y0 + tile / part.tiles_x * TILE_H;
  const int x = x0 + lane;
  /* this thread's rows y0 + warp + i CF_OVERLAY_BLOCK_H, i < its count */
  const int rows = x < part.x1 ? part.y1 - y0 - warp : 0;
  uint8_t *const first = pl.data + (size_t) y0 * pl.pitch + (size_t) x0 * pb;
  const Off start = (Off) warp * (Off) pl.pitch + (Off) (lane * pb);

  /* The tile's first and last luma column and row (of the top-left luma
   * pixels of its samples): what it meets of the panel. The same answers
   * for the whole block; supersets of what its pixels read. */
  const int x1 = x0 + TILE_W < part.x1 ? x0 + TILE_W : part.x1;
  const int y1 = y0 + TILE_H < part.y1 ? y0 + TILE_H : part.y1;
  const int lx0 = x0 << sx, lx1 = (x1 - 1) << sx;
  const int ly0 = y0 << sy, ly1 = (y1 - 1) << sy;
  const bool panel = meets_panel (plan, lx0, lx1, ly0, ly1);
  const bool text = panel && plan->text_lines > 0 && lx1 >= plan->text_x
      && ly1 >= plan->text_y;
  const bool hist = panel && plan->hist_width > 0 && plan->hist_height > 0
      && lx1 >= plan->hist_x && lx0 < plan->hist_x + plan->hist_width
      && ly1 >= plan->hist_y && ly0 < plan->hist_y + plan->hist_height;
  if (W == 1 && pl.zebra_words && !panel) {
    zebra_quads<1> (a, pl, part, x0, y0);
    return;
  }
  /* 32-bit pixels are loaded before the setup, to overlap its work; eight
   * 64-bit ones in flight through it would take 16 of the 64 registers
   * (BLOCKS_PER_SM) and spill, so they wait for its end */
  constexpr bool early = sizeof (T) == 4;
  T px[ROWS];
  uint32_t bin[3] = { 0, 0, 0 };
  CfOvlColumn col;

  /* (without text in the tile, no pixel needs the text column: no
   * division) */
  ovl_column (plan, x << sx, text, &col);

  /* 0. the text, by warp 3 before it loads any pixel: lane l formats line
   * l, then each lane works out the glyphs of its column. First, so that
   * this serial work overlaps the other warps' loads, and before the
   * pixels so that its registers do not add to theirs (occupancy). */
  if (text && warp == TEXT_WARP) {
    if (lane < plan->text_lines) {
      CfOvlLineStats ls;

      text_line_stats (plan, a.stats, lane, &ls);
      s.len[lane] = text_line_format (plan, &ls, a.fps_x10, lane,
          s.text[lane]);
    }
    __syncwarp ();
    s.glyph[lane] = col.text >= 0 ?
        text_column (plan, s.text, s.len, col.text) : 0;
  }

  /* 1. the statistics the tile needs: loads issued before the pixels', so
   * that the setup's path does not wait behind them. Thread t: bin t of
   * each graph channel (a bin fits 32 bits: a histogram count, or the luma
   * weighting, (256 (2^32 - 1) + 128) >> 8). */
  if (hist) {
#pragma unroll
    for (int c = 0; c < 3; c++)
      if (c < graph_channels (plan))
        bin[c] = (uint32_t) bin_value (plan, a.stats, c, tid);
  }

  /* 2. this thread's pixels */
  if (early)
    load_rows<W> (px, first, start, step, rows, pb);

  /* 3. the rest of the tile's per-frame data, in shared memory */
  int bar[3] = { 0, 0, 0 };
  uint32_t glyph = 0;

  if (panel) {
    if (hist) {
#pragma unroll
      for (int c = 0; c < 3; c++)
        s.bin[c][tid] = bin[c];
    }
    if (tid >= ROW_THREAD) {
      CfOvlRow row;

      ovl_row (plan, (y0 + tid - ROW_THREAD) << sy, &row);
      s.row[tid - ROW_THREAD] = row;
    }
    __syncthreads ();
    if (hist && tid < BAR_THREADS) {
      /* warp c: the tops (graph_tops () of the C reference: each lane
       * takes bins l, l + 32, ..., then a butterfly of shuffles), then
       * channel c's bar in column lane */
      const int c = warp;
      unsigned long long top[3], all = 0;
      int h = 0;

#pragma unroll
      for (int k = 0; k < 3; k++) {
        uint32_t m = 0;

#pragma unroll
        for (int j = 0; j < CF_STATS_BINS / WARP; j++)
          m = max (m, s.bin[k][lane + WARP * j]);
#pragma unroll
        for (int d = WARP / 2; d > 0; d /= 2)
          m = max (m, __shfl_xor_sync (0xffffffffu, m, d));
        top[k] = scaled (plan, m);
        all = top[k] > all ? top[k] : all;
      }
      if (c < graph_channels (plan) && col.hist >= 0) {
        int b1, b = column_bins (plan, col.hist, &b1);
        uint32_t v = 0;

        for (; b < b1; b++)
          v = max (v, s.bin[c][b]);
        h = bar_rows (plan, v, plan->channels == CF_OVERLAY_CHANNELS_RGB ?
            all : c == 0 ? top[0] : c == 1 ? top[1] : top[2],
            graph_rows (plan, c));
      }
      s.bar[c][lane] = h;
    }
    __syncthreads ();
    if (hist) {
#pragma unroll
      for (int c = 0; c < 3; c++)
        bar[c] = s.bar[c][lane];
    }
    if (text)
      glyph = s.glyph[lane];
  }

  /* 4. draw; zebra's stripe of row i is (lx + ly) / period, with ly
   * growing by zstep a row: a multiplication by the magic reciprocal */
  const bool zebra_on = pl.zebra;
  const uint32_t keep = 256 - plan->alpha;
  const uint32_t zstep = CF_OVERLAY_BLOCK_H << sy;
  const uint32_t z0 = (uint32_t) ((x << sx) + ((y0 + warp) << sy));
  Zebra<T> zb;

  if (zebra_on)
    zb = zebra_setup<W, T> (plan, pl);
  if (!early)
    load_rows<W> (px, first, start, step, rows, pb);
#pragma unroll
  for (int i = 0; i < ROWS; i++) {
    T v = px[i];

    if (i * CF_OVERLAY_BLOCK_H >= rows)
      break;
    if (zebra_on && (__umulhi (z0 + i * zstep, a.zebra_magic) & 1) == 0)
      v = zebra<W> (pl, zb, v);
    if (panel) {
      const CfOvlRow row = s.row[warp + i * CF_OVERLAY_BLOCK_H];
      const int idx = ovl_index (plan, NULL, NULL, bar, &glyph, NULL, NULL,
          &col, &row);

      if (idx >= 0)
        v = paint<W> (pl, v, idx, keep);
    }
    if (v != px[i])
      store_pixel<W> (first + (start + i * step), v, pb);
  }
}

/* draw_tile () on tile @tile of the part @part of the plane @pl, the code
 * of its words. */
template <typename T> __device__ __forceinline__ void
draw_word (const Args & a, const Plane & pl, const Part & part, Shared & s,
    int tile)
{
  if constexpr (sizeof (T) == 8) {
    if (pl.word == 8)
      draw_tile<8, T> (a, pl, part, s, tile);
    else
      draw_tile<0, T> (a, pl, part, s, tile);
  } else {
    switch (pl.word) {
      case 4:
        draw_tile<4, T> (a, pl, part, s, tile);
        break;
      case 2:
        draw_tile<2, T> (a, pl, part, s, tile);
        break;
      case 1:
        draw_tile<1, T> (a, pl, part, s, tile);
        break;
      default:
        draw_tile<0, T> (a, pl, part, s, tile);
        break;
    }
  }
}

/* One kernel per pixel word T: the formats of 8-byte pixels (one plane)
 * get their own, so that the registers of the 32-bit paths are allocated
 * as if the 64-bit ones did not exist (together they spill). */
template <typename T> __global__ void __launch_bounds__ (THREADS,
    BLOCKS_PER_SM)
overlay_kernel (const __grid_constant__ Args a)
{
  __shared__ Shared s;
  int k = 0;

  /* the part of this block's tiles, and its plane */
  for (int q = 1; q < a.n_parts; q++)
    if ((int) blockIdx.x >= a.part[q].first_block)
      k = q;
  /* the part copied, its few fields in registers (referenced, ptxas
   * spills more); the plane referenced: a copy of it would go to local
   * memory, paint () indexing its colours */
  const Part part = a.part[k];
  const Plane & pl = a.plane[part.plane];
  const int b = (int) blockIdx.x - part.first_block;

  /* a part of zebra words away from the panel: zebra on QUAD_GROUP tiles
   * at once */
  if constexpr (sizeof (T) == 4) {
    if (part.group == QUAD_GROUP) {
      zebra_quads<QUAD_GROUP> (a, pl, part, part.x0 + b % part.blocks_x *
          QUAD_GROUP * TILE_W, part.y0 + b / part.blocks_x * TILE_H);
      return;
    }
  }
  draw_word<T> (a, pl, part, s, b);
}

/* The tile-aligned cuts [*m0, *m1) of the rectangle's samples @r0 .. @r1
 * (from @r0 in steps of @tile) around the tiles that meet the panel's luma
 * samples @l0 .. @l1 (shifted by @shift): as draw_tile () tells a tile
 * that meets the panel, or wider. */
void
panel_cuts (int r0, int r1, int tile, int l0, int l1, int shift, int *m0,
    int *m1)
{
  const int p0 = l0 >> shift, p1 = l1 >> shift;

  *m0 = p0 <= r0 ? r0 : r0 + (p0 - r0) / tile * tile;
  *m1 = p1 < r0 ? r0 : r0 + ((p1 - r0) / tile + 1) * tile;
  *m0 = *m0 > r1 ? r1 : *m0;
  *m1 = *m1 < *m0 ? *m0 : *m1 > r1 ? r1 : *m1;
}

/* Cuts a->part[k], the part of a plane of zebra words, into up to five
 * rectangles in its place: the tile rows above and below those that meet
 * the panel, and the tile columns left and right of those that meet it in
 * those rows, QUAD_GROUP tiles a block (zebra only); the tiles that meet
 * the panel in both, a tile a block. */
void
cut_quads (Args * a, int k)
{
  const Part r = a->part[k];
  const Plane & pl = a->plane[r.plane];
  const CfOverlayPlan *plan = &a->plan;
  int ym0, ym1, xm0, xm1;

  panel_cuts (r.y0, r.y1, TILE_H, plan->panel_y,
      plan->panel_y + plan->panel_height - 1, pl.shift_y, &ym0, &ym1);
  panel_cuts (r.x0, r.x1, TILE_W, plan->panel_x,
      plan->panel_x + plan->panel_width - 1, pl.shift_x, &xm0, &xm1);
  /* x0, x1, y0, y1, group of each part */
  const int parts[5][5] = {
    {r.x0, r.x1, r.y0, ym0, QUAD_GROUP},
    {r.x0, xm0, ym0, ym1, QUAD_GROUP},
    {xm0, xm1, ym0, ym1, 1},
    {xm1, r.x1, ym0, ym1, QUAD_GROUP},
    {r.x0, r.x1, ym1, r.y1, QUAD_GROUP},
  };
  Part cut[5];
  int n = 0;

  for (const auto & c : parts)
    if (c[1] > c[0] && c[3] > c[2]) {
      cut[n] = r;
      cut[n].x0 = c[0];
      cut[n].x1 = c[1];
      cut[n].y0 = c[2];
      cut[n].y1 = c[3];
      cut[n].group = c[4];
      n++;
    }
  for (int q = a->n_parts - 1; q > k; q--)
    a->part[q + n - 1] = a->part[q];
  for (int q = 0; q < n; q++)
    a->part[k + q] = cut[q];
  a->n_parts += n - 1;
}

}  // namespace

extern "C" cudaError_t
cf_overlay_cuda (const CfOverlayPlan * plan, const CfImage * d_image,
    const CfStats * d_stats, int fps_x10, cudaStream_t stream)
{
  const CfFormatInfo *info;
  Args a;
  int blocks = 0;
  bool wide = false;            /* pixels of 8 bytes: 64-bit words */

  if (!plan || !d_image || !d_stats || plan->format == CF_FORMAT_COUNT
      || cf_image_check (d_image) != 0 || d_image->format != plan->format
      || d_image->width != plan->width || d_image->height != plan->height)
    return cudaErrorInvalidValue;
  info = cf_format_info (d_image->format);
  a.plan = *plan;
  a.zebra_magic = plan->zebra_period > 0 && plan->zebra_period <= 0xffff ?
      (uint32_t) (((1ull << 32) + plan->zebra_period - 1) /
      plan->zebra_period) : 0;
  a.n_planes = 0;
  a.stats = d_stats;
  a.fps_x10 = fps_x10;
  for (int p = 0; p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    const int sb = l->sample_bytes, pb = l->pixel_bytes;
    const uint64_t sample = sb == 2 ? 0xffff : 0xff;
    int x0, y0, x1, y1;

    cf_ovl_plane_rect (plan, d_image, p, &x0, &y0, &x1, &y1);
    if (x1 <= x0 || y1 <= y0)
      continue;

    Part & part = a.part[a.n_planes];
    Plane & pl = a.plane[a.n_planes++];

    part.plane = a.n_planes - 1;
    part.x0 = x0;
    part.y0 = y0;
    part.x1 = x1;
    part.y1 = y1;
    part.group = 1;
    pl.data = (uint8_t *) d_image->data[p];
    pl.pitch = d_image->pitch[p];
    pl.shift_x = l->shift_x;
    pl.shift_y = l->shift_y;
    pl.pixel_bytes = pb;
    wide = wide || pb > 4;
    pl.sample_bytes = sb;
    pl.samples = pb / sb;
    /* words when the pixels are aligned ones of 8-bit samples or of four
     * 16-bit ones and a tile's byte offsets fit 32 bits (draw_tile ()) */
    const bool aligned = (uintptr_t) pl.data % pb == 0 && pl.pitch % pb == 0;
    const bool bytes = sb == 1 && (pb == 1 || ((pb == 2 || pb == 4)
            && aligned));
    const bool quads = sb == 2 && pb == 8 && aligned;

    pl.word = (bytes || quads) && pl.pitch <= INT32_MAX / TILE_H ? pb : 0;
    pl.bits = info->bits;
    pl.lsb = info->lsb;
    pl.value_mask = CF_FORMAT_MAX_VALUE (info);
    pl.zebra = plan->zebra && p == 0;
    pl.zebra_weights = 0;
    pl.colour_mask = 0;
    for (int k = 0; k < 4; k++)
      pl.background[k] = 0;
    for (int c = 0; c < 3; c++)
      pl.zebra_shift[c] = -1;
    for (int i = 0; i < CF_OVERLAY_COLOURS; i++)
      pl.colour[i] = 0;
    for (int k = 0; k < pl.samples; k++) {
      const int c = l->channel[k], shift = 8 * sb * k;

      if (c < 0 || c >= 3)
        continue;               /* alpha or padding: never written */
      pl.zebra_shift[c] = shift;
      if (sb == 1 && pl.samples >= 3)
        pl.zebra_weights |= (uint32_t) (c == 0 ? 77 : c == 1 ? 150 : 29)
            << shift;
      pl.colour_mask |= sample << shift;
      for (int i = 0; i < CF_OVERLAY_COLOURS; i++)
        pl.colour[i] |= (uint64_t) CF_VALUE_SAMPLE (plan->palette[i][c],
            info->lsb) << shift;
      /* c a + 128 of the values: 8-bit samples by halves of even and odd
       * samples */
      const uint32_t ca = (uint32_t) plan->palette[CF_OVERLAY_BACKGROUND][c] *
          (uint32_t) plan->alpha + 128;
      if (sb == 1)
        pl.background[k % 2] |= ca << 16 * (k / 2);
      else
        pl.background[k] = ca;
    }
  }
  /* a part a plane; a plane of zebra words (plane 0, zebra on its whole
   * rectangle) cut in parts (cut_quads ()) */
  a.n_parts = a.n_planes;
  for (int p = a.n_planes - 1; p >= 0; p--) {
    Plane & pl = a.plane[p];

    pl.zebra_words = pl.zebra && pl.word == 1 && pl.samples == 1
        && pl.colour_mask == 0xff && (uintptr_t) pl.data % 4 == 0
        && pl.pitch % 4 == 0 && a.part[p].x0 % 4 == 0;
    if (pl.zebra_words)
      cut_quads (&a, p);
  }
  for (int k = 0; k < a.n_parts; k++) {
    Part & part = a.part[k];

    part.tiles_x = (part.x1 - part.x0 + TILE_W - 1) / TILE_W;
    part.blocks_x = (part.tiles_x + part.group - 1) / part.group;
    part.first_block = blocks;
    blocks += part.blocks_x * ((part.y1 - part.y0 + TILE_H - 1) / TILE_H);
  }
  if (a.n_parts == 0)
    return cudaSuccess;
  if (wide)
    overlay_kernel<uint64_t><<<blocks, THREADS, 0, stream>>> (a);
  else
    overlay_kernel<uint32_t><<<blocks, THREADS, 0, stream>>> (a);
  return cudaGetLastError ();
}
