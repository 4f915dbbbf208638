/* Tests of cf_image_copy_threads () (kernels/device.h): the same bytes as
 * cf_image_copy () for frames below and above the size it splits at, odd
 * sizes, padded and misaligned pitches, every format, the padding after the
 * rows untouched; and several callers at once (the module's workers shared
 * between them). CPU only: the copies are between host memories. */
#include "cf-frame.h"
#include "device.h"

static void
check_copy (CfFormat format, int w, int h, size_t extra, int misalign,
    GRand * rand)
{
  Frame src, got, want;

  frame_init (&src, format, w, h, extra, misalign);
  frame_init (&got, format, w, h, extra + 3, (misalign + 5) % 16);
  frame_init (&want, format, w, h, extra + 3, (misalign + 5) % 16);
  frame_random (&src, rand);
  g_assert_cmpint (cf_image_copy (&src.img, &want.img), ==, 0);
  g_assert_cmpint (cf_image_copy_threads (&src.img, &got.img), ==, 0);
  check_samples (&got, &want, cf_format_info (format)->name);
  check_padding (&got, MARKER, "copy");
  frame_clear (&src);
  frame_clear (&got);
  frame_clear (&want);
}

static void
test_sizes (void)
{
  static const int sizes[][2] = { {1, 1}, {3, 3}, {64, 7}, {1920, 1080},
  {1921, 1083}, {3840, 2160}
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  CfFormat f;
  guint s;

  CF_FOR_EACH_FORMAT (f)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      if (s < 4 || f == CF_FORMAT_RGBA || f == CF_FORMAT_NV12
          || f == CF_FORMAT_I420)
        check_copy (f, sizes[s][0], sizes[s][1], s % 2 ? 13 : 0, s % 3,
            rand);
  check_copy (CF_FORMAT_YUY2, 1921, 1081, 7, 1, rand);
  g_rand_free (rand);
}

static void
test_refusals (void)
{
  Frame a, b;

  frame_init (&a, CF_FORMAT_RGBA, 8, 8, 0, 0);
  frame_init (&b, CF_FORMAT_RGBA, 8, 9, 0, 0);
  g_assert_cmpint (cf_image_copy_threads (&a.img, &b.img), ==, -1);
  b.img.height = 8;
  b.img.format = CF_FORMAT_BGRA;
  g_assert_cmpint (cf_image_copy_threads (&a.img, &b.img), ==, -1);
  frame_clear (&a);
  frame_clear (&b);
}

static gpointer
copier (gpointer data)
{
  GRand *rand = g_rand_new_with_seed (GPOINTER_TO_UINT (data));
  int i;

  for (i = 0; i < 6; i++)
    check_copy (i % 2 ? CF_FORMAT_NV12 : CF_FORMAT_RGBA, 1280 + i, 720 + i,
        i, i % 4, rand);
  g_rand_free (rand);
  return NULL;
}

/* four callers at once */
static void
test_concurrent (void)
{
  GThread *t[4];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (t); i++)
    t[i] = g_thread_new ("copier", copier,
        GUINT_TO_POINTER (cf_test_seed () + i));
  for (i = 0; i < G_N_ELEMENTS (t); i++)
    g_thread_join (t[i]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cf_test_seed ();
  g_test_add_func ("/image-copy/sizes", test_sizes);
  g_test_add_func ("/image-copy/refusals", test_refusals);
  g_test_add_func ("/image-copy/concurrent", test_concurrent);
  return g_test_run ();
}
