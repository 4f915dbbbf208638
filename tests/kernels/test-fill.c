/* Tests of kernels/fill.h: known answers on the CPU (clipping, subsampled
 * planes, padding samples, 16-bit samples, the formats' black at 8, 10 and
 * 16 bits, values shifted into place and masked: P010's in the high bits,
 * I420_10LE's in the low ones), and the GPU against the CPU byte for byte
 * on every format, with the rest of the picture untouched. */
#include <string.h>

#include "cf-test.h"
#include "cf-threads.h"
#include "fill.h"

typedef struct {
  CfImage img;
  guint8 *mem;
  gsize bytes;
} Picture;

/* A picture of random bytes, each plane's pitch 16-aligned plus 32 bytes
 * of (random) padding. */
static void
picture_new (Picture * pic, CfFormat format, int w, int h, GRand * rand)
{
  const CfFormatInfo *info = cf_format_info (format);
  gsize offset[CF_MAX_PLANES], total = 0, i;
  int p;

  memset (pic, 0, sizeof (*pic));
  pic->img.format = format;
  pic->img.width = w;
  pic->img.height = h;
  for (p = 0; p < info->n_planes; p++) {
    pic->img.pitch[p] = ((cf_plane_row_bytes (format, p, w) + 15) & ~15) + 32;
    offset[p] = total;
    total += pic->img.pitch[p] * cf_plane_height (format, p, h);
  }
  pic->mem = g_malloc (total);
  pic->bytes = total;
  for (i = 0; i < total; i++)
    pic->mem[i] = g_rand_int (rand);
  for (p = 0; p < info->n_planes; p++)
    pic->img.data[p] = pic->mem + offset[p];
}

static const uint8_t *
sample_at (const Picture * pic, int p, int x, int y, int k)
{
  const CfPlaneLayout *l = &cf_format_info (pic->img.format)->plane[p];
  return (const uint8_t *) pic->img.data[p] + y * pic->img.pitch[p] +
      x * l->pixel_bytes + k * l->sample_bytes;
}

/* Every sample inside @r (in pixels, clipped) holds the value of its
 * channel (its bits above the format's dropped, shifted to the format's
 * lsb), every other byte is as in @orig. */
static void
check_fill (const Picture * pic, const Picture * orig, CfRect r,
    const uint16_t value[CF_MAX_CHANNELS])
{
  const CfFormatInfo *info = cf_format_info (pic->img.format);
  int p, x, y, k;

  for (p = 0; p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    const int pw = cf_plane_width (pic->img.format, p, pic->img.width);
    const int ph = cf_plane_height (pic->img.format, p, pic->img.height);
    for (y = 0; y < ph; y++)
      for (x = 0; x < pw; x++) {
        /* the chroma sample of pixel (x << shift) is inside when any of
         * its pixels is */
        const int px0 = x << l->shift_x, py0 = y << l->shift_y;
        const int px1 = px0 + (1 << l->shift_x), py1 = py0 + (1 << l->shift_y);
        const gboolean inside = px1 > r.x && px0 < r.x + r.width &&
            py1 > r.y && py0 < r.y + r.height;
        for (k = 0; k < l->pixel_bytes / l->sample_bytes; k++) {
          const uint8_t *s = sample_at (pic, p, x, y, k);
          const uint8_t *o = sample_at (orig, p, x, y, k);
          guint got = s[0] | (l->sample_bytes == 2 ? s[1] << 8 : 0);
          guint want = o[0] | (l->sample_bytes == 2 ? o[1] << 8 : 0);
          if (inside && l->channel[k] < 0)
            want = l->sample_bytes == 2 ? 0xffff : 0xff;
          else if (inside)
            want = (value[l->channel[k]] & ((1u << info->bits) - 1)) <<
                info->lsb;
          if (got != want)
            g_error ("%s %dx%d plane %d sample (%d,%d,%d): %u, want %u",
                info->name, pic->img.width, pic->img.height, p, x, y, k, got,
                want);
        }
      }
    /* row padding untouched */
    for (y = 0; y < ph; y++) {
      gsize row = cf_plane_row_bytes (pic->img.format, p, pic->img.width);
      g_assert_cmpmem ((uint8_t *) pic->img.data[p] + y * pic->img.pitch[p] +
          row, pic->img.pitch[p] - row, (uint8_t *) orig->img.data[p] +
          y * orig->img.pitch[p] + row, orig->img.pitch[p] - row);
    }
  }
}

static const CfRect rects[] = {
  {0, 0, 64, 1}, {2, 4, 6, 8}, {-3, -3, 10, 10}, {60, 30, 100, 100},
  {0, 0, 1, 1}, {10, 10, 0, 5}, {0, 0, 1000, 1000},
};

static void
test_black (void)
{
  /* values per channel, worked out by hand from Y 16, U V 128 */
  static const struct {
    CfFormat format;
    uint16_t v[CF_MAX_CHANNELS];
  } want[] = {
    {CF_FORMAT_RGBA, {0, 0, 0, 255}},
    {CF_FORMAT_RGBX, {0, 0, 0, 0}},
    {CF_FORMAT_GRAY16_LE, {0, 0, 0, 0}},
    {CF_FORMAT_NV12, {16, 128, 128, 0}},
    {CF_FORMAT_Y42B, {16, 128, 128, 0}},
    {CF_FORMAT_I420_10LE, {64, 512, 512, 0}},
    {CF_FORMAT_P010_10LE, {64, 512, 512, 0}},
    {CF_FORMAT_P016_LE, {4096, 32768, 32768, 0}},
    {CF_FORMAT_Y444_16LE, {4096, 32768, 32768, 0}},
    {CF_FORMAT_RGBA64_LE, {0, 0, 0, 65535}},
    {CF_FORMAT_BGRA64_LE, {0, 0, 0, 65535}},
  };
  uint16_t v[CF_MAX_CHANNELS];
  guint i;
  int c;

  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    cf_fill_black (want[i].format, v);
    for (c = 0; c < CF_MAX_CHANNELS; c++)
      g_assert_cmpuint (v[c], ==, want[i].v[c]);
  }
}

/* The bytes of 16-bit samples: a value sits at the format's lsb, its bits
 * above the format's are dropped; known answers by hand. */
static void
test_deep_bytes (void)
{
  static const struct {
    CfFormat format;
    uint16_t value[CF_MAX_CHANNELS];
    guint y, u, v;              /* the samples written */
  } cases[] = {
    /* black */
    {CF_FORMAT_P010_10LE, {64, 512, 512}, 0x1000, 0x8000, 0x8000},
    {CF_FORMAT_I420_10LE, {64, 512, 512}, 0x0040, 0x0200, 0x0200},
    {CF_FORMAT_P016_LE, {4096, 32768, 32768}, 0x1000, 0x8000, 0x8000},
    /* values beyond 10 bits: masked, not clamped */
    {CF_FORMAT_P010_10LE, {0xffff, 0x0401, 0x03ff}, 0xffc0, 0x0040, 0xffc0},
    {CF_FORMAT_I420_10LE, {0xffff, 0x0401, 0x03ff}, 0x03ff, 0x0001, 0x03ff},
    {CF_FORMAT_Y444_16LE, {0xffff, 0x0401, 0x03ff}, 0xffff, 0x0401, 0x03ff},
  };
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  const CfRect all = { 0, 0, 4, 2 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const CfFormatInfo *info = cf_format_info (cases[i].format);
    Picture pic;
    const uint8_t *s;

    picture_new (&pic, cases[i].format, 4, 2, rand);
    g_assert_cmpint (cf_fill_cpu (&pic.img, all, cases[i].value), ==, 0);
    s = sample_at (&pic, 0, 3, 1, 0);
    g_assert_cmphex (s[0] | s[1] << 8, ==, cases[i].y);
    /* U and V: of NV12's pair, or of their own planes */
    s = info->n_planes == 2 ? sample_at (&pic, 1, 1, 0, 0) :
        sample_at (&pic, 1, 0, 0, 0);
    g_assert_cmphex (s[0] | s[1] << 8, ==, cases[i].u);
    s = info->n_planes == 2 ? sample_at (&pic, 1, 1, 0, 1) :
        sample_at (&pic, 2, 0, 0, 0);
    g_assert_cmphex (s[0] | s[1] << 8, ==, cases[i].v);
    g_free (pic.mem);
  }
  /* RGBA64: R 0x1234, A 0xffff at bytes 0, 1 and 6, 7 of the pixel */
  {
    const uint16_t value[CF_MAX_CHANNELS] = { 0x1234, 0, 0, 0xffff };
    const guint8 want[8] = { 0x34, 0x12, 0, 0, 0, 0, 0xff, 0xff };
    Picture pic;

    picture_new (&pic, CF_FORMAT_RGBA64_LE, 3, 3, rand);
    g_assert_cmpint (cf_fill_cpu (&pic.img, all, value), ==, 0);
    g_assert_cmpmem (sample_at (&pic, 0, 2, 1, 0), 8, want, 8);
    g_free (pic.mem);
  }
  g_rand_free (rand);
}

static void
test_cpu (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  const uint16_t value[CF_MAX_CHANNELS] = { 11, 22, 33, 44 };
  const uint16_t deep[CF_MAX_CHANNELS] = { 0x1234, 0xfedc, 0x0401, 0x8765 };
  CfFormat f;
  guint i;

  CF_FOR_EACH_FORMAT (f)
    for (i = 0; i < G_N_ELEMENTS (rects); i++) {
      const uint16_t *v = cf_format_info (f)->depth == 16 ? deep : value;
      Picture pic, orig;

      picture_new (&pic, f, 64, 33, rand);
      picture_new (&orig, f, 64, 33, rand);
      memcpy (orig.mem, pic.mem, pic.bytes);
      g_assert_cmpint (cf_fill_cpu (&pic.img, rects[i], v), ==, 0);
      check_fill (&pic, &orig, rects[i], v);
      g_free (pic.mem);
      g_free (orig.mem);
    }
  g_rand_free (rand);
}

static void
test_invalid (void)
{
  const uint16_t v[CF_MAX_CHANNELS] = { 0 };
  CfImage bad = { CF_FORMAT_RGBA, 0, 4 };
  CfRect r = { 0, 0, 1, 1 };

  g_assert_cmpint (cf_fill_cpu (&bad, r, v), ==, -1);
}

#ifdef HAVE_CUDA
static void
test_cuda (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  /* the second has bits above every format's values: masked alike */
  const uint16_t values[2][CF_MAX_CHANNELS] = { {16, 128, 128, 255},
  {0xffff, 0x1234, 0x8001, 0xabcd}
  };
  CfFormat f;
  guint i;

  CF_FOR_EACH_FORMAT (f)
    for (i = 0; i < 2 * G_N_ELEMENTS (rects); i++) {
      const uint16_t *value = values[i % 2];
      const CfRect rect = rects[i / 2];
      Picture pic, gpu;
      CfImage d;
      void *d_mem;
      int p;

      picture_new (&pic, f, 64, 33, rand);
      picture_new (&gpu, f, 64, 33, rand);
      CHECK_CUDA (cudaMalloc (&d_mem, pic.bytes));
      CHECK_CUDA (cudaMemcpy (d_mem, pic.mem, pic.bytes,
              cudaMemcpyHostToDevice));
      d = pic.img;
      for (p = 0; p < CF_MAX_PLANES; p++)
        if (d.data[p])
          d.data[p] = (uint8_t *) d_mem + ((uint8_t *) pic.img.data[p] -
              pic.mem);
      CHECK_CUDA (cf_fill_cuda (&d, rect, value, 0));
      CHECK_CUDA (cudaMemcpy (gpu.mem, d_mem, pic.bytes,
              cudaMemcpyDeviceToHost));
      g_assert_cmpint (cf_fill_cpu (&pic.img, rect, value), ==, 0);
      g_assert_cmpmem (gpu.mem, gpu.bytes, pic.mem, pic.bytes);
      CHECK_CUDA (cudaFree (d_mem));
      g_free (pic.mem);
      g_free (gpu.mem);
    }
  g_rand_free (rand);
}
#endif

typedef struct
{
  const Frame *src;
  CfRect rect;
  uint16_t value[CF_MAX_CHANNELS];
} FillRun;

/* Fills the rectangle of a copy of the source in @out. */
static int
fill_run (int n_threads, Frame * out, gpointer data)
{
  const FillRun *r = data;

  g_assert_cmpint (cf_image_copy (&r->src->img, &out->img), ==, 0);
  return cf_fill_cpu_threads (&out->img, r->rect, r->value, n_threads);
}

/* cf_fill_cpu_threads () writes the same bytes for every thread count:
 * every format, the whole picture, a rectangle inside it and one beyond
 * its edges, odd sizes, padded and misaligned rows. */
static void
test_threads (void)
{
  GRand *rand = g_rand_new_with_seed (cf_test_seed ());
  guint f, s, r;

  CF_FOR_EACH_FORMAT (f)
    for (s = 0; s < G_N_ELEMENTS (cf_thread_sizes); s++)
      for (r = 0; r < 3; r++) {
        const int w = cf_thread_sizes[s][0], h = cf_thread_sizes[s][1];
        const CfRect rects[3] = { {0, 0, w, h}, {w / 4 * 2, h / 6 * 2,
                w / 2, h / 2}, {-4, h / 2, w + 9, h}
        };
        gchar *what = g_strdup_printf ("%s %dx%d rect %u",
            cf_format_info (f)->name, w, h, r);
        FillRun run = { NULL, rects[r], {0} };
        Frame src, out;
        int c;

        for (c = 0; c < CF_MAX_CHANNELS; c++)
          run.value[c] = (uint16_t) g_rand_int (rand);
        cf_thread_frame_init (&src, f, w, h, s);
        frame_random (&src, rand);
        cf_thread_frame_init (&out, f, w, h, s + 1);
        run.src = &src;
        cf_check_thread_counts (&out, fill_run, &run, rand, what);
        frame_clear (&src);
        frame_clear (&out);
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
    g_test_add_func ("/fill/cuda/against-cpu", test_cuda);
#endif
  } else {
    g_test_add_func ("/fill/cpu/black", test_black);
    g_test_add_func ("/fill/cpu/deep-bytes", test_deep_bytes);
    g_test_add_func ("/fill/cpu/rects", test_cpu);
    g_test_add_func ("/fill/cpu/invalid", test_invalid);
    g_test_add_func ("/fill/cpu/threads", test_threads);
  }
  return g_test_run ();
}
