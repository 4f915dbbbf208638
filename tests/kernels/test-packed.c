/* Tests of kernels/packed.h: known answers on the CPU (YUY2 and UYVY of an
 * odd width, whose last macropixel holds one pixel), a round trip, the
 * refusals (mismatched images here, packed formats in every other kernel
 * family), and the GPU against the CPU byte for byte over odd sizes, 1x1,
 * padded and misaligned pitches, with the padding untouched. */
#include "cf-frame.h"
#include "cf-threads.h"
#include "overlay.h"
#include "packed.h"
#include "resize.h"
#include "stats.h"
#include "stencil.h"
#include "fill.h"

static const CfFormat packed_formats[] = { CF_FORMAT_YUY2, CF_FORMAT_UYVY };

static void
planar_init (Frame * f, const Frame * packed, size_t extra, int misalign)
{
  frame_init (f, cf_packed_planar (packed->img.format), packed->img.width,
      packed->img.height, extra, misalign);
}

/* 3x2 pictures by hand: a row is [Y0 U0 Y1 V0] [Y2 U1 - V1] in YUY2's
 * order, [U0 Y0 V0 Y1] [U1 Y2 V1 -] in UYVY's. */
static void
test_known (void)
{
  static const guint8 yuy2[2][8] = {
    {10, 20, 11, 30, 12, 21, 99, 31},
    {40, 50, 41, 60, 42, 51, 98, 61},
  };
  static const guint8 uyvy[2][8] = {
    {20, 10, 30, 11, 21, 12, 31, 99},
    {50, 40, 60, 41, 51, 42, 61, 98},
  };
  static const guint8 luma[2][3] = { {10, 11, 12}, {40, 41, 42} };
  static const guint8 u[2][2] = { {20, 21}, {50, 51} };
  static const guint8 v[2][2] = { {30, 31}, {60, 61} };
  guint i;
  int y;

  for (i = 0; i < G_N_ELEMENTS (packed_formats); i++) {
    const guint8 (*bytes)[8] = i == 0 ? yuy2 : uyvy;
    Frame packed, planar, back;

    frame_init (&packed, packed_formats[i], 3, 2, 5, 0);
    planar_init (&planar, &packed, 3, 1);
    frame_init (&back, packed_formats[i], 3, 2, 7, 2);
    g_assert_cmpuint (packed.row[0], ==, 8);
    for (y = 0; y < 2; y++)
      memcpy (sample_ptr (&packed, 0, 0, y, 0), bytes[y], 8);
    g_assert_cmpint (cf_packed_unpack_cpu (&packed.img, &planar.img), ==, 0);
    for (y = 0; y < 2; y++) {
      g_assert_cmpmem (sample_ptr (&planar, 0, 0, y, 0), 3, luma[y], 3);
      g_assert_cmpmem (sample_ptr (&planar, 1, 0, y, 0), 2, u[y], 2);
      g_assert_cmpmem (sample_ptr (&planar, 2, 0, y, 0), 2, v[y], 2);
    }
    check_padding (&planar, MARKER, "unpacked");
    /* back: the missing pixel's luma sample repeats the one before it */
    g_assert_cmpint (cf_packed_pack_cpu (&planar.img, &back.img), ==, 0);
    for (y = 0; y < 2; y++) {
      guint8 want[8];

      memcpy (want, bytes[y], 8);
      want[i == 0 ? 6 : 7] = luma[y][2];
      g_assert_cmpmem (sample_ptr (&back, 0, 0, y, 0), 8, want, 8);
    }
    check_padding (&back, MARKER, "packed");
    frame_clear (&packed);
    frame_clear (&planar);
    frame_clear (&back);
  }
}

/* Unpacking and packing again gives every byte back, at every size. */
static void
test_round_trip (void)
{
  static const int sizes[][2] = { {1, 1}, {2, 1}, {3, 3}, {64, 2},
  {17, 5}
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  guint i, s;
  int y;

  for (i = 0; i < G_N_ELEMENTS (packed_formats); i++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      const int w = sizes[s][0], h = sizes[s][1];
      Frame packed, planar, back;

      frame_init (&packed, packed_formats[i], w, h, 3, 1);
      frame_random (&packed, rand);
      /* an odd width's spare luma sample holds what packing writes */
      if (w % 2)
        for (y = 0; y < h; y++) {
          guint8 *m = sample_ptr (&packed, 0, w / 2, y, 0);
          if (i == 0)
            m[2] = m[0];
          else
            m[3] = m[1];
        }
      planar_init (&planar, &packed, 0, 0);
      frame_init (&back, packed_formats[i], w, h, 0, 3);
      g_assert_cmpint (cf_packed_unpack_cpu (&packed.img, &planar.img), ==,
          0);
      g_assert_cmpint (cf_packed_pack_cpu (&planar.img, &back.img), ==, 0);
      check_samples (&back, &packed, "round trip");
      frame_clear (&packed);
      frame_clear (&planar);
      frame_clear (&back);
    }
  g_rand_free (rand);
}

static void
test_invalid (void)
{
  static const double one[] = { 1.0 };
  CfStencilParams sp;
  CfOverlayParams os;
  CfResizePlan rp;
  CfStencilPlan tp;
  CfOverlayPlan op;
  CfStats st;
  const uint16_t black[CF_MAX_CHANNELS] = { 16, 128, 128 };
  CfRect all = { 0, 0, 4, 4 };
  Frame packed, planar, other;
  CfImage bad;
  guint i;

  frame_init (&packed, CF_FORMAT_YUY2, 4, 4, 0, 0);
  frame_init (&planar, CF_FORMAT_Y42B, 4, 4, 0, 0);
  frame_init (&other, CF_FORMAT_I420, 4, 4, 0, 0);
  g_assert_cmpint (cf_packed_planar (CF_FORMAT_YUY2), ==, CF_FORMAT_Y42B);
  g_assert_cmpint (cf_packed_planar (CF_FORMAT_UYVY), ==, CF_FORMAT_Y42B);
  g_assert_cmpint (cf_packed_planar (CF_FORMAT_NV12), ==, CF_FORMAT_NV12);
  /* mismatched images */
  g_assert_cmpint (cf_packed_unpack_cpu (&packed.img, &other.img), ==, -1);
  g_assert_cmpint (cf_packed_unpack_cpu (&planar.img, &planar.img), ==, -1);
  g_assert_cmpint (cf_packed_pack_cpu (&planar.img, &planar.img), ==, -1);
  g_assert_cmpint (cf_packed_pack_cpu (&packed.img, &planar.img), ==, -1);
  for (i = 0; i < 3; i++) {
    bad = planar.img;
    if (i == 0)
      bad.width = 3;
    else if (i == 1)
      bad.height = 5;
    else
      bad.data[2] = NULL;
    g_assert_cmpint (cf_packed_unpack_cpu (&packed.img, &bad), ==, -1);
    g_assert_cmpint (cf_packed_pack_cpu (&bad, &packed.img), ==, -1);
  }
  bad = packed.img;
  bad.pitch[0] = 7;
  g_assert_cmpint (cf_packed_unpack_cpu (&bad, &planar.img), ==, -1);
  /* every other family refuses the packed formats, and takes their
   * planar twin with the same arguments */
  memset (&sp, 0, sizeof (sp));
  sp.direction = CF_STENCIL_HORIZONTAL;
  sp.x.taps = one;
  sp.border = CF_STENCIL_CLAMP;
  memset (&os, 0, sizeof (os));
  os.panel_width = os.panel_height = 32;
  os.opacity = 160;
  os.show_text = TRUE;
  for (i = 0; i <= G_N_ELEMENTS (packed_formats); i++) {
    const gboolean twin = i == G_N_ELEMENTS (packed_formats);
    const CfFormat f = twin ? CF_FORMAT_Y42B : packed_formats[i];
    const int want = twin ? 0 : -1;
    CfImage img = twin ? planar.img : packed.img;

    img.format = f;
    g_assert_cmpint (cf_image_check (&img), ==, 0);
    g_assert_cmpint (cf_image_check_planar (&img), ==, want);
    g_assert_cmpint (cf_stats_cpu (&img, &st), ==, want);
    g_assert_cmpint (cf_fill_cpu (&img, all, black), ==, want);
    g_assert_cmpint (cf_resize_plan_init (&rp, f, CF_RESIZE_BILINEAR, 1, 4, 4,
            2, 2, 0, 0), ==, want);
    cf_resize_plan_clear (&rp);
    g_assert_cmpint (cf_stencil_plan_init (&tp, f, 4, 4, &sp), ==, want);
    cf_stencil_plan_clear (&tp);
    g_assert_cmpint (cf_overlay_plan_init (&op, f, 64, 64, &os), ==, want);
  }
  frame_clear (&packed);
  frame_clear (&planar);
  frame_clear (&other);
}

#ifdef HAVE_CUDA
/* Both directions on the GPU against the CPU, every byte of the output
 * (poisoned before) and its padding compared; the packed side's pitch and
 * alignment vary, including rows a 32-bit word cannot read. */
static void
test_cuda (void)
{
  static const int sizes[][2] = { {1, 1}, {2, 1}, {3, 3}, {5, 7},
  {64, 4}, {333, 17}, {1920, 3}, {3840, 5}
  };
  static const struct {
    size_t extra;
    int misalign;
  } pitches[] = { {0, 0}, {3, 1}, {ALIGNED_PITCH, 0}, {1, 2}, {16, 4} };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  cudaStream_t stream;
  guint i, s, p;

  CHECK_CUDA (cudaStreamCreate (&stream));
  for (i = 0; i < G_N_ELEMENTS (packed_formats); i++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (p = 0; p < G_N_ELEMENTS (pitches); p++) {
        const int w = sizes[s][0], h = sizes[s][1];
        Frame packed, want, got;
        Device d_in, d_out;

        /* unpack */
        frame_init (&packed, packed_formats[i], w, h, pitches[p].extra,
            pitches[p].misalign);
        frame_random (&packed, rand);
        planar_init (&want, &packed, 5, 3);
        planar_init (&got, &packed, 5, 3);
        device_init (&packed, &d_in, FALSE, stream);
        device_init (&got, &d_out, TRUE, stream);
        /* the padding of the output as the CPU's: MARKER */
        for (int q = 0; q < 3; q++)
          for (int y = 0; y < got.h[q]; y++)
            CHECK_CUDA (cudaMemsetAsync ((guint8 *) d_out.img.data[q] +
                    y * got.img.pitch[q] + got.row[q], MARKER,
                    got.img.pitch[q] - got.row[q], stream));
        CHECK_CUDA (cf_packed_unpack_cuda (&d_in.img, &d_out.img, stream));
        device_finish (&d_out, &got, stream);
        device_finish (&d_in, NULL, stream);
        g_assert_cmpint (cf_packed_unpack_cpu (&packed.img, &want.img), ==,
            0);
        check_samples (&got, &want, "unpack");
        check_padding (&got, MARKER, "unpack");

        /* pack the random planar picture back */
        frame_random (&want, rand);
        {
          Frame back_cpu, back_gpu;

          frame_init (&back_cpu, packed_formats[i], w, h, pitches[p].extra,
              pitches[p].misalign);
          frame_init (&back_gpu, packed_formats[i], w, h, pitches[p].extra,
              pitches[p].misalign);
          device_init (&want, &d_in, FALSE, stream);
          device_init (&back_gpu, &d_out, FALSE, stream);
          CHECK_CUDA (cf_packed_pack_cuda (&d_in.img, &d_out.img, stream));
          device_finish (&d_out, &back_gpu, stream);
          device_finish (&d_in, NULL, stream);
          g_assert_cmpint (cf_packed_pack_cpu (&want.img, &back_cpu.img), ==,
              0);
          check_samples (&back_gpu, &back_cpu, "pack");
          check_padding (&back_gpu, MARKER, "pack");
          frame_clear (&back_cpu);
          frame_clear (&back_gpu);
        }
        frame_clear (&packed);
        frame_clear (&want);
        frame_clear (&got);
      }
  /* refusals */
  {
    Frame packed, planar;

    frame_init (&packed, CF_FORMAT_UYVY, 4, 4, 0, 0);
    frame_init (&planar, CF_FORMAT_I420, 4, 4, 0, 0);
    g_assert_cmpint (cf_packed_unpack_cuda (&packed.img, &planar.img,
            stream), ==, cudaErrorInvalidValue);
    g_assert_cmpint (cf_packed_pack_cuda (&planar.img, &packed.img,
            stream), ==, cudaErrorInvalidValue);
    frame_clear (&packed);
    frame_clear (&planar);
  }
  CHECK_CUDA (cudaStreamDestroy (stream));
  g_rand_free (rand);
}
#endif

typedef struct
{
  const Frame *src;
  gboolean pack;
} PackedRun;

static int
packed_run (int n_threads, Frame * out, gpointer data)
{
  const PackedRun *r = data;

  return r->pack ? cf_packed_pack_cpu_threads (&r->src->img, &out->img,
      n_threads) : cf_packed_unpack_cpu_threads (&r->src->img, &out->img,
      n_threads);
}

/* Both conversions write the same bytes for every thread count: odd
 * widths (a last macropixel of one pixel), padded and misaligned rows. */
static void
test_threads (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  guint i, s;

  for (i = 0; i < G_N_ELEMENTS (packed_formats); i++)
    for (s = 0; s < G_N_ELEMENTS (cf_thread_sizes); s++) {
      const int w = cf_thread_sizes[s][0], h = cf_thread_sizes[s][1];
      gchar *what = g_strdup_printf ("%s %dx%d",
          cf_format_info (packed_formats[i])->name, w, h);
      Frame packed, planar;
      PackedRun run = { &packed, FALSE };

      cf_thread_frame_init (&packed, packed_formats[i], w, h, s);
      cf_thread_frame_init (&planar, CF_FORMAT_Y42B, w, h, s + 1);
      frame_random (&packed, rand);
      cf_check_thread_counts (&planar, packed_run, &run, rand, what);
      run.src = &planar;
      run.pack = TRUE;
      frame_random (&planar, rand);
      frame_clear (&packed);
      cf_thread_frame_init (&packed, packed_formats[i], w, h, s + 2);
      cf_check_thread_counts (&packed, packed_run, &run, rand, what);
      frame_clear (&packed);
      frame_clear (&planar);
      g_free (what);
    }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  cf_test_require_backend ();
  g_test_init (&argc, &argv, NULL);
  cf_test_seed ();
  if (cf_test_want_cuda ()) {
#ifdef HAVE_CUDA
    g_test_add_func ("/packed/cuda/against-cpu", test_cuda);
#endif
  } else {
    g_test_add_func ("/packed/cpu/known", test_known);
    g_test_add_func ("/packed/cpu/round-trip", test_round_trip);
    g_test_add_func ("/packed/cpu/invalid", test_invalid);
    g_test_add_func ("/packed/cpu/threads", test_threads);
  }
  return g_test_run ();
}
