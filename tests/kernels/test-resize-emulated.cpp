/* cudaresize's kernels of fixed patterns, halve_kernel () and
 * third_kernel (), run on the host against cf_resize_cpu (), so that their
 * arithmetic and indexing are checked where there is no GPU (CI).
 *
 * Their own device code is taken from kernels/resize.cu at build time
 * (resize-fixed-sections.py) and compiled here as C++ with host stand-ins
 * for what CUDA provides: the vector types, __byte_perm (), ld (), the
 * warp shuffles, and the direct kernel's dot2 () (dp2a). Each warp of the
 * grid runs lane after lane twice: the first pass records what every lane
 * hands to __shfl_up_sync () and __shfl_down_sync (), the second gives each
 * lane its neighbour's recorded value (the kernels shuffle on every lane
 * alike, so both passes make the same calls; a difference fails the test).
 * Only the second pass writes the output.
 *
 * Every load is checked: aligned to its size, within the source plane's
 * allocation and within its row's bytes (never the padding). Every vector
 * store is checked to be aligned and within the output rows; the bytes
 * around the output (the pitch's padding, before the plane and after it)
 * must stay as they were.
 *
 * Planes: random sizes at exactly 2x, 3x and 1.5x (and one pixel off), every
 * method, antialiased or not, every chroma siting, random pitches and
 * output addresses; then the GPU tests' own sizes. Which planes a kernel
 * takes is halve_plane () and third_ratio () themselves; the size
 * threshold of third_kernel is not applied (CF_RESIZE_THIRD=1's choice).
 * The second test fails unless each kernel ran on planes of each pixel
 * size it takes. */
#undef HAVE_CUDA                /* cf-test.h without the CUDA runtime: the
                                 * stand-ins below are CUDA's names */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

extern "C" {
#include "cf-test.h"
#include "resize.h"
#include "resize-fixed-sizes.h"
}

using std::max;
using std::min;

/* ------------------------------------------------------- CUDA stand-ins */

struct uint2 {
  uint32_t x, y;
};
struct uint4 {
  uint32_t x, y, z, w;
};
struct dim3 {
  unsigned x, y, z;
};

static uint2
make_uint2 (uint32_t a, uint32_t b)
{
  return { a, b };
}

static uint4
make_uint4 (uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
  return { a, b, c, d };
}

static dim3 blockIdx, threadIdx, blockDim;

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
typedef void *cudaStream_t;

/* PTX prmt's default mode: byte i of the result is byte (s >> 4 i) & 7 of
 * y:x; the kernels use no sign-replicating selector */
static uint32_t
__byte_perm (uint32_t x, uint32_t y, uint32_t s)
{
  const uint64_t b = (uint64_t) y << 32 | x;
  uint32_t r = 0;

  for (int i = 0; i < 4; i++) {
    const unsigned n = (s >> (4 * i)) & 15;

    g_assert_cmpuint (n & 8, ==, 0);
    r |= (uint32_t) ((b >> (8 * (n & 7))) & 0xff) << (8 * i);
  }
  return r;
}

/* cuda-common.cuh's dot2 () as resize.cu takes it (SIGNED): PTX
 * dp2a.lo / dp2a.hi.s32.u32, c + the two signed 16-bit halves of @w times
 * bytes 0 and 1 (HI false) or 2 and 3 of @b, unsigned (device code only,
 * which this test does not include; weight_pair (), which packs @w, comes
 * with fixed-third.inc) */
template <bool HI>
static int32_t
dot2 (uint32_t w, uint32_t b, int32_t c)
{
  const int sh = HI ? 16 : 0;

  return c + (int16_t) (w & 0xffff) * (int32_t) ((b >> sh) & 0xff) +
      (int16_t) (w >> 16) * (int32_t) ((b >> (sh + 8)) & 0xff);
}

/* The warp's lanes, run one after the other twice (see above). */
static struct
{
  int pass, lane;
  std::vector<uint32_t> up[32], down[32];
  size_t n_up[32], n_down[32];
} warp;

static uint32_t
shuffle (std::vector<uint32_t> * sent, size_t * n, uint32_t v, int from)
{
  const size_t c = n[warp.lane]++;

  if (warp.pass == 0) {
    sent[warp.lane].push_back (v);
    return v;
  }
  g_assert_cmpuint (c, <, sent[warp.lane].size ());
  g_assert_cmpuint (sent[warp.lane][c], ==, v);
  if (from < 0 || from > 31)
    return v;                   /* no lane there: its own value */
  g_assert_cmpuint (c, <, sent[from].size ());
  return sent[from][c];
}

static uint32_t
__shfl_up_sync (uint32_t, uint32_t v, int d)
{
  return shuffle (warp.up, warp.n_up, v, warp.lane - d);
}

static uint32_t
__shfl_down_sync (uint32_t, uint32_t v, int d)
{
  return shuffle (warp.down, warp.n_down, v, warp.lane + d);
}

/* The planes the kernel reads and writes, and what went wrong with them. */
static struct
{
  const uint8_t *src;
  size_t src_pitch, src_size;
  int src_bytes;
  uint8_t *dst;
  size_t dst_pitch;
  int dst_bytes, dst_height;
  long bad_loads, bad_stores;
} io;

template <typename T>
static T
ld (const T * p)
{
  const uint8_t *q = (const uint8_t *) p;
  const long off = q - io.src;
  T t;

  if ((uintptr_t) q % sizeof (T) || off < 0 ||
      off + (long) sizeof (T) > (long) io.src_size ||
      off % (long) io.src_pitch + (long) sizeof (T) > io.src_bytes)
    io.bad_loads++;
  memcpy (&t, p, sizeof (T));
  return t;
}

template <typename T>
static T *
checked_store (uint8_t * d)
{
  const long off = d - io.dst;

  if ((uintptr_t) d % sizeof (T) || off < 0 ||
      off % (long) io.dst_pitch + (long) sizeof (T) > io.dst_bytes ||
      off / (long) io.dst_pitch >= io.dst_height)
    io.bad_stores++;
  return (T *) d;
}

/* ------------------------------------------------ the kernels' own code */

#include "fixed-halve.inc"
#include "fixed-third.inc"
#include "fixed-host.inc"

/* Runs @kernel over @grid of blocks of @threads, warp by warp; the first
 * pass writes to @scratch. */
template <typename Args, typename Kernel>
static void
run_grid (const Args & args, dim3 grid, int threads, uint8_t * scratch,
    Kernel kernel)
{
  blockDim = { (unsigned) threads, 1, 1 };
  for (unsigned by = 0; by < grid.y; by++)
    for (unsigned bx = 0; bx < grid.x; bx++)
      for (int w = 0; w < threads / 32; w++) {
        for (int l = 0; l < 32; l++) {
          warp.up[l].clear ();
          warp.down[l].clear ();
        }
        for (warp.pass = 0; warp.pass < 2; warp.pass++)
          for (warp.lane = 0; warp.lane < 32; warp.lane++) {
            Args a = args;
            uint8_t *const dst = io.dst;
            const long bad = io.bad_stores;

            warp.n_up[warp.lane] = warp.n_down[warp.lane] = 0;
            blockIdx = { bx, by, 0 };
            threadIdx = { (unsigned) (32 * w + warp.lane), 0, 0 };
            if (warp.pass == 0)
              a.g.dst = io.dst = scratch;
            kernel (a);
            io.dst = dst;
            if (warp.pass == 0)
              io.bad_stores = bad;
          }
      }
}

/* halve_kernel () and third_kernel () on their planes, as launch_halve ()
 * and launch_third () launch them. */
template <int PB>
static void
run_halve (const HalveArgs & args, uint8_t * scratch)
{
  using S = HalveShape<PB>;

  run_grid (args, halve_grid<PB> (args.g), kHalveThreads, scratch,
      [](HalveArgs a) { halve_kernel<PB, S::V, S::R, S::kMinBlocks> (a); });
}

/* @stagger: the instance with staggered loads, where third_staggers () */
template <int PB, int P>
static void
run_third (const ThirdArgs & args, bool stagger, uint8_t * scratch)
{
  if constexpr (third_staggers (PB, P))
    if (stagger) {
      run_grid (args, third_grid<P> (args.g), kThirdThreads, scratch,
          [](ThirdArgs a) { third_kernel<PB, P, true> (a); });
      return;
    }
  run_grid (args, third_grid<P> (args.g), kThirdThreads, scratch,
      [](ThirdArgs a) { third_kernel<PB, P, false> (a); });
}

/* Kernel runs, by kernel (0 halve, 1 third, 2 two thirds) and pixel
 * bytes; and of third with staggered loads, and with every row first
 * where it staggers them. */
static long runs[3][5], runs_staggered, runs_unstaggered;

static void
print_runs (const char *what)
{
  printf ("%s: halve %ld / %ld / %ld planes (1- / 2- / 4-byte pixels), third "
      "%ld / %ld / %ld (%ld of them staggered, %ld not), two thirds %ld / %ld "
      "/ %ld\n", what, runs[0][1], runs[0][2], runs[0][4], runs[1][1],
      runs[1][2], runs[1][4], runs_staggered, runs_unstaggered, runs[2][1],
      runs[2][2], runs[2][4]);
}

/* Plane @p of @plan, taken by halve_kernel or third_kernel, run on the
 * host from @src into a fresh output (pitch and address from @rand), and
 * checked against @want (cf_resize_cpu ()'s). */
static void
check_plane (const CfResizePlan * plan, int p, const CfImage * src,
    const CfImage * want, GRand * rand)
{
  const CfFormat f = src->format;
  const int PB = cf_format_info (f)->plane[p].pixel_bytes;
  HalveArgs h = { };
  ThirdArgs t = { };
  const bool halve = halve_plane (plan, p, &h);
  /* third_kernel<PB, P>, or 0 */
  const int P = halve ? 0 : third_ratio (plan, p, PB, &t);
  const bool third = P != 0;
  /* where third_kernel staggers its loads, either instance (a GPU takes
   * the staggered one unless CF_RESIZE_THIRD_STAGGER=0) */
  const bool staggers = third && third_staggers (PB, P);
  const bool stagger = staggers && g_rand_boolean (rand);

  if (!halve && !third)
    return;
  const int in_w = cf_plane_width (f, p, src->width);
  const int in_h = cf_plane_height (f, p, src->height);
  const int out_w = cf_plane_width (f, p, want->width);
  const int out_h = cf_plane_height (f, p, want->height);
  const int out_bytes = out_w * PB;
  const size_t pitch = g_rand_boolean (rand) ? (out_bytes + 15) / 16 * 16 :
      out_bytes + g_rand_int_range (rand, 0, 9);
  const int skew = g_rand_int_range (rand, 0, 3) ? 0 :
      g_rand_int_range (rand, 0, 16);
  std::vector<uint8_t> base (pitch * out_h + 128, 0x5a), scratch (base);
  uint8_t *const d = base.data () + 64 + skew;
  const FixedPlane g = { (const uint8_t *) src->data[p], src->pitch[p], d,
    pitch, in_w * PB, in_h, out_bytes, out_h, false
  };
  char *what = g_strdup_printf ("%s %s plane %d, %d x %d to %d x %d%s",
      halve ? "halve" : P == 1 ? "third" : "two thirds",
      cf_format_info (f)->name, p, in_w, in_h, out_w, out_h,
      !staggers ? "" : stagger ? ", staggered" : ", every row first");

  io.src = g.src;
  io.src_pitch = g.src_pitch;
  io.src_size = g.src_pitch * in_h;
  io.src_bytes = g.in_bytes;
  io.dst = d;
  io.dst_pitch = pitch;
  io.dst_bytes = out_bytes;
  io.dst_height = out_h;
  io.bad_loads = io.bad_stores = 0;
  if (halve) {
    h.g = g;
    h.g.dst_aligned = (((uintptr_t) d | pitch) % (8 * (PB == 4 ?
                HalveShape<4>::V : 1))) == 0;
    if (PB == 1)
      run_halve<1> (h, scratch.data () + 64);
    else if (PB == 2)
      run_halve<2> (h, scratch.data () + 64);
    else
      run_halve<4> (h, scratch.data () + 64);
  } else {
    t.g = g;
    t.g.dst_aligned = (((uintptr_t) d | pitch) % 8) == 0;
    if (PB == 1 && P == 1)
      run_third<1, 1> (t, stagger, scratch.data () + 64);
    else if (PB == 2 && P == 1)
      run_third<2, 1> (t, stagger, scratch.data () + 64);
    else if (PB == 1)
      run_third<1, 2> (t, stagger, scratch.data () + 64);
    else if (PB == 2)
      run_third<2, 2> (t, stagger, scratch.data () + 64);
    else if (P == 1)
      run_third<4, 1> (t, stagger, scratch.data () + 64);
    else
      run_third<4, 2> (t, stagger, scratch.data () + 64);
  }
  runs[halve ? 0 : P][PB]++;
  runs_staggered += stagger;
  runs_unstaggered += staggers && !stagger;
  if (io.bad_loads || io.bad_stores)
    g_error ("%s: %ld bad loads, %ld bad stores", what, io.bad_loads,
        io.bad_stores);
  for (int y = 0; y < out_h; y++) {
    const uint8_t *row = d + y * pitch;
    const uint8_t *ref = (const uint8_t *) want->data[p] + y * want->pitch[p];

    if (memcmp (row, ref, out_bytes) != 0)
      g_error ("%s: row %d differs from the CPU's", what, y);
    for (size_t i = out_bytes; i < pitch; i++)
      if (row[i] != 0x5a)
        g_error ("%s: row %d's padding written", what, y);
  }
  for (int i = 0; i < 64 + skew; i++)
    if (base[i] != 0x5a)
      g_error ("%s: bytes before the plane written", what);
  for (size_t i = 64 + skew + pitch * out_h; i < base.size (); i++)
    if (base[i] != 0x5a)
      g_error ("%s: bytes after the plane written", what);
  g_free (what);
}

/* Every plane of @format scaled from @iw x @ih to @ow x @oh that a kernel
 * of fixed patterns takes, from a random source with random padding. */
static void
check_size (CfFormat format, CfResizeMethod method, int antialias,
    int siting, int iw, int ih, int ow, int oh, GRand * rand)
{
  const CfFormatInfo *info = cf_format_info (format);
  CfResizePlan plan;
  CfImage src = { }, want = { };
  std::vector<std::vector<uint8_t>> bufs;

  g_assert_cmpint (cf_resize_plan_init (&plan, format, method, antialias,
          iw, ih, ow, oh, siting & 1, siting >> 1), ==, 0);
  src.format = want.format = format;
  src.width = iw;
  src.height = ih;
  want.width = ow;
  want.height = oh;
  for (int p = 0; p < info->n_planes; p++) {
    const size_t row = cf_plane_row_bytes (format, p, iw);
    const size_t pitch = (row + 15) / 16 * 16 + 16 * g_rand_int_range (rand,
        0, 2);

    bufs.emplace_back (pitch * cf_plane_height (format, p, ih));
    for (auto & b : bufs.back ())
      b = (uint8_t) g_rand_int (rand);
    src.data[p] = bufs.back ().data ();
    src.pitch[p] = pitch;
    want.pitch[p] = cf_plane_row_bytes (format, p, ow);
    bufs.emplace_back (want.pitch[p] * cf_plane_height (format, p, oh));
    want.data[p] = bufs.back ().data ();
  }
  g_assert_cmpint (cf_resize_cpu (&plan, &src, &want), ==, 0);
  for (int p = 0; p < info->n_planes; p++)
    if (info->plane[p].sample_bytes == 1)
      check_plane (&plan, p, &src, &want, rand);
  cf_resize_plan_clear (&plan);
}

static const CfFormat formats[] = { CF_FORMAT_GRAY8, CF_FORMAT_NV12,
  CF_FORMAT_NV21, CF_FORMAT_I420, CF_FORMAT_Y42B, CF_FORMAT_RGBA,
  CF_FORMAT_BGRX
};

/* Random sizes at exactly 2x, 3x and 1.5x, some one pixel off, of every
 * method, antialiased or not, at every siting; most antialiased bilinear,
 * the pattern the kernels are for. */
static void
test_random (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());

  for (int i = 0; i < 1500; i++) {
    const CfFormat f = formats[g_rand_int_range (rand, 0,
            G_N_ELEMENTS (formats))];
    /* 2x, 3x or 1.5x */
    const int factor = g_rand_int_range (rand, 2, 5);
    const int shape = g_rand_int_range (rand, 0, 3);
    int ow = 1 + g_rand_int_range (rand, 0, shape == 0 ? 12 :
        shape == 1 ? 400 : 1500);
    int oh = 1 + g_rand_int_range (rand, 0, shape == 0 ? 12 : 30);
    CfResizeMethod m = (CfResizeMethod) g_rand_int_range (rand, 0,
        CF_RESIZE_METHOD_COUNT);
    int aa = g_rand_boolean (rand), siting = g_rand_int_range (rand, 0, 4);
    int iw = factor * ow, ih = factor * oh;

    if (factor == 4) {          /* 1.5x: even output sizes */
      ow += ow % 2;
      oh += oh % 2;
      iw = 3 * ow / 2;
      ih = 3 * oh / 2;
    }

    if (g_rand_int_range (rand, 0, 10) == 0) {
      iw += g_rand_int_range (rand, 0, 2);
      ih += g_rand_int_range (rand, 0, 2);
    }
    if (g_rand_int_range (rand, 0, 4)) {
      m = CF_RESIZE_BILINEAR;
      aa = 1;
      if (g_rand_boolean (rand))
        siting = 0;
    }
    check_size (f, m, aa, siting, iw, ih, ow, oh, rand);
  }
  g_rand_free (rand);
  print_runs ("random sizes");
}

/* The sizes of /resize/cuda/halve, third and two-thirds
 * (resize-fixed-sizes.h), every format above, method and antialiasing, at
 * the siting gpu_check_all () gives them (index % 4); and 4K to 1080p and
 * to 720p. */
static void
check_sizes (const int (*sizes)[4], guint n, GRand * rand)
{
  for (guint s = 0; s < n; s++)
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
      for (int m = 0; m < CF_RESIZE_METHOD_COUNT; m++)
        for (int aa = 0; aa < 2; aa++)
          check_size (formats[f], (CfResizeMethod) m, aa, s % 4, sizes[s][0],
              sizes[s][1], sizes[s][2], sizes[s][3], rand);
}

static void
test_gpu_sizes (void)
{
  static const int uhd[][4] = { {3840, 2160, 1920, 1080},
  {3840, 2160, 1280, 720}, {1920, 1080, 1280, 720}
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed () + 1);

  memset (runs, 0, sizeof (runs));
  runs_staggered = runs_unstaggered = 0;
  check_sizes (cf_halve_sizes, G_N_ELEMENTS (cf_halve_sizes), rand);
  check_sizes (cf_third_sizes, G_N_ELEMENTS (cf_third_sizes), rand);
  check_sizes (cf_two_thirds_sizes, G_N_ELEMENTS (cf_two_thirds_sizes), rand);
  for (guint s = 0; s < G_N_ELEMENTS (uhd); s++)
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
      check_size (formats[f], CF_RESIZE_BILINEAR, 1, 0, uhd[s][0], uhd[s][1],
          uhd[s][2], uhd[s][3], rand);
  g_rand_free (rand);
  print_runs ("the GPU tests' sizes");
  /* each kernel ran on each pixel size it takes (these sizes are chosen
   * for it; a random run may miss one) */
  g_assert_cmpint (runs[0][1], >, 0);
  g_assert_cmpint (runs[0][2], >, 0);
  g_assert_cmpint (runs[0][4], >, 0);
  g_assert_cmpint (runs[1][1], >, 0);
  g_assert_cmpint (runs[1][2], >, 0);
  g_assert_cmpint (runs[1][4], >, 0);
  g_assert_cmpint (runs_staggered, >, 0);
  g_assert_cmpint (runs_unstaggered, >, 0);
  g_assert_cmpint (runs[2][1], >, 0);
  g_assert_cmpint (runs[2][2], >, 0);
  g_assert_cmpint (runs[2][4], >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/resize/emulated/random", test_random);
  g_test_add_func ("/resize/emulated/gpu-sizes", test_gpu_sizes);
  return g_test_run ();
}
