/* Checking the threaded CPU functions (the _threads variants, threads.h):
 * the same bytes with 1, 2, 3 and all the cores' threads, and with more
 * threads than a picture has rows, on pictures of odd sizes, 1x1
 * included, with padded and misaligned rows.
 *
 * Every run writes into an output whose samples were made random just
 * before, so that a sample a split forgets (a band ending one row short)
 * differs from the run it is compared with; the padding after the rows
 * holds MARKER and must keep it. Counts 3 and 64 split pictures into more
 * parts than a two-core machine has cores, so the bands' edges are tested
 * there too (the pool makes the threads asked for).
 */
#ifndef CF_THREADS_CHECK_H
#define CF_THREADS_CHECK_H

#include "cf-frame.h"

/* 0: all the cores; 64: more than most of cf_thread_sizes' rows */
static const int cf_thread_counts[] = { 1, 2, 3, 0, 64 };

/* 1x1, odd by odd, fewer rows than threads, bands shorter than the
 * filters' taps, a band of a few rows per thread */
static const int cf_thread_sizes[][2] = {
  {1, 1}, {3, 3}, {5, 2}, {33, 17}, {101, 63}, {257, 131}
};

/* A @width x @height picture of @format, every byte MARKER, its rows
 * padded and its planes misaligned by amounts that vary with @index. */
static inline void
cf_thread_frame_init (Frame * f, CfFormat format, int width, int height,
    int index)
{
  frame_init (f, format, width, height, index % 2 ? 13 : 0, index % 3);
}

/* The samples of every row random; the padding left as it is. */
static inline void
frame_random_samples (Frame * f, GRand * rand)
{
  int p, y;
  size_t i;

  for (p = 0; p < f->n_planes; p++)
    for (y = 0; y < f->h[p]; y++)
      for (i = 0; i < f->row[p]; i++)
        ((guint8 *) f->img.data[p])[y * f->img.pitch[p] + i] =
            (guint8) g_rand_int (rand);
}

/* Runs @run (n_threads, @out, @data) once per cf_thread_counts into @out
 * (made random first; an in-place function copies its input into it), and
 * checks that every run wrote the bytes of the 1-thread run and left the
 * padding alone. @run returns 0. */
static inline void
cf_check_thread_counts (Frame * out, int (*run) (int n_threads, Frame * out,
        gpointer data), gpointer data, GRand * rand, const char *what)
{
  Frame want;
  guint i;

  frame_init (&want, out->img.format, out->img.width, out->img.height, 0, 0);
  for (i = 0; i < G_N_ELEMENTS (cf_thread_counts); i++) {
    gchar *name = g_strdup_printf ("%s, %d threads", what,
        cf_thread_counts[i]);

    frame_random_samples (out, rand);
    g_assert_cmpint (run (cf_thread_counts[i], out, data), ==, 0);
    check_padding (out, MARKER, name);
    if (i == 0)
      g_assert_cmpint (cf_image_copy (&out->img, &want.img), ==, 0);
    else
      check_samples (out, &want, name);
    g_free (name);
  }
  frame_clear (&want);
}

#endif /* CF_THREADS_CHECK_H */
