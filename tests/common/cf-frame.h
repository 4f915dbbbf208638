/* Host pictures for the kernel tests: a CfImage with its plane geometry,
 * padded (and optionally misaligned) planes whose padding must stay
 * untouched, sample access, random fills and comparisons, and device copies
 * of the same layout.
 */
#ifndef CF_FRAME_H
#define CF_FRAME_H

#include "cf-test.h"
#include "format.h"

#define MARKER 0xEE             /* in padding that must stay untouched */
#define POISON 0xA5             /* in the device output before a launch */

/* frame_init ()'s @extra for pitches of a multiple of 64 bytes, at least
 * 64 beyond the row: the GPU kernels' 16-byte loads */
#define ALIGNED_PITCH ((size_t) -1)

/* A host picture with its plane geometry. */
typedef struct
{
  CfImage img;
  int n_planes;
  int w[CF_MAX_PLANES], h[CF_MAX_PLANES];       /* plane size in pixels */
  int pb[CF_MAX_PLANES], sb[CF_MAX_PLANES];     /* pixel, sample bytes */
  size_t row[CF_MAX_PLANES];    /* bytes of samples in a row */
  guint8 *base[CF_MAX_PLANES];  /* the allocations */
} Frame;

/* Allocates a @width x @height picture of @format, pitch row bytes +
 * @extra (or ALIGNED_PITCH), each plane @misalign bytes (0 .. 15) past its
 * allocation (-15 .. -1: the last plane -@misalign bytes, the others 0),
 * every byte MARKER. */
static inline void
frame_init (Frame * f, CfFormat format, int width, int height, size_t extra,
    int misalign)
{
  const CfFormatInfo *info = cf_format_info (format);
  int p;

  memset (f, 0, sizeof (*f));
  f->img.format = format;
  f->img.width = width;
  f->img.height = height;
  f->n_planes = info->n_planes;
  for (p = 0; p < f->n_planes; p++) {
    f->w[p] = cf_plane_width (format, p, width);
    f->h[p] = cf_plane_height (format, p, height);
    f->pb[p] = info->plane[p].pixel_bytes;
    f->sb[p] = info->plane[p].sample_bytes;
    f->row[p] = cf_plane_row_bytes (format, p, width);
    f->img.pitch[p] = extra == ALIGNED_PITCH ?
        (f->row[p] + 63) / 64 * 64 + 64 : f->row[p] + extra;
    f->base[p] = g_malloc (f->img.pitch[p] * f->h[p] + 16);
    f->img.data[p] = f->base[p] + (misalign >= 0 ? misalign :
        p == f->n_planes - 1 ? -misalign : 0);
    memset (f->img.data[p], MARKER, f->img.pitch[p] * f->h[p]);
  }
}

static inline void
frame_clear (Frame * f)
{
  int p;

  for (p = 0; p < f->n_planes; p++)
    g_free (f->base[p]);
}

static inline int
samples_per_pixel (const Frame * f, int p)
{
  return f->pb[p] / f->sb[p];
}

static inline guint8 *
sample_ptr (const Frame * f, int p, int x, int y, int k)
{
  return (guint8 *) f->img.data[p] + y * f->img.pitch[p] + x * f->pb[p] +
      k * f->sb[p];
}

static inline guint
sample_get (const Frame * f, int p, int x, int y, int k)
{
  const guint8 *s = sample_ptr (f, p, x, y, k);

  return f->sb[p] == 2 ? s[0] | s[1] << 8 : s[0];
}

static inline void
sample_set (Frame * f, int p, int x, int y, int k, guint v)
{
  guint8 *s = sample_ptr (f, p, x, y, k);

  s[0] = (guint8) v;
  if (f->sb[p] == 2)
    s[1] = (guint8) (v >> 8);
}

/* Every byte random, padding included. */
static inline void
frame_random (Frame * f, GRand * rand)
{
  guint32 r = 0;
  int p;
  size_t i;

  for (p = 0; p < f->n_planes; p++)
    for (i = 0; i < f->img.pitch[p] * f->h[p]; i++) {
      if (i % 4 == 0)
        r = g_rand_int (rand);
      ((guint8 *) f->img.data[p])[i] = (guint8) (r >> (8 * (i % 4)));
    }
}

/* The bytes between each row's end and its pitch hold @value. */
static inline void
check_padding (const Frame * f, guint8 value, const char *what)
{
  int p, y;
  size_t i;

  for (p = 0; p < f->n_planes; p++)
    for (y = 0; y < f->h[p]; y++)
      for (i = f->row[p]; i < f->img.pitch[p]; i++) {
        const guint8 b = ((guint8 *) f->img.data[p])[y * f->img.pitch[p] + i];

        if (b != value) {
          g_printerr ("%s: plane %d row %d byte %zu overwritten\n", what, p,
              y, i);
          g_assert_cmphex (b, ==, value);
        }
      }
}

/* Every sample of @got is @want's. */
static inline void
check_samples (const Frame * got, const Frame * want, const char *what)
{
  int p, x, y, k;

  for (p = 0; p < got->n_planes; p++)
    for (y = 0; y < got->h[p]; y++) {
      if (memcmp (sample_ptr (got, p, 0, y, 0), sample_ptr (want, p, 0, y, 0),
              got->row[p]) == 0)
        continue;
      for (x = 0; x < got->w[p]; x++)
        for (k = 0; k < samples_per_pixel (got, p); k++) {
          const guint v = sample_get (got, p, x, y, k);
          const guint w = sample_get (want, p, x, y, k);

          if (v != w) {
            g_printerr ("%s: first difference: plane %d, pixel %d,%d, "
                "sample %d\n", what, p, x, y, k);
            g_assert_cmpuint (v, ==, w);
          }
        }
    }
}

/* Spoils an image of a format of 2 or more planes in way @i (0 .. 5). */
static inline void
bad_image (CfImage * img, int i)
{
  if (i == 0)
    img->width--;
  else if (i == 1)
    img->height++;
  else if (i == 2)              /* another format of the same planes */
    img->format = img->format == CF_FORMAT_NV12 ? CF_FORMAT_NV21 :
        CF_FORMAT_YV12;
  else if (i == 3)
    img->data[1] = NULL;
  else if (i == 4)
    img->pitch[1] = 1;
  else
    img->format = CF_FORMAT_COUNT;
}

#ifdef HAVE_CUDA
/* A device picture: a Frame's geometry, each plane at its misalignment. */
typedef struct
{
  CfImage img;
  void *base[CF_MAX_PLANES];
} Device;

/* A device copy of @f on @stream, same pitches and misalignment; every
 * byte POISON when @poison. */
static inline void
device_init (const Frame * f, Device * d, gboolean poison,
    cudaStream_t stream)
{
  int p;

  memset (d, 0, sizeof (*d));
  d->img = f->img;
  for (p = 0; p < f->n_planes; p++) {
    const size_t bytes = f->img.pitch[p] * f->h[p];
    const size_t misalign = (guint8 *) f->img.data[p] - f->base[p];

    CHECK_CUDA (cudaMalloc (&d->base[p], bytes + 16));
    d->img.data[p] = (guint8 *) d->base[p] + misalign;
    if (poison)
      CHECK_CUDA (cudaMemsetAsync (d->img.data[p], POISON, bytes, stream));
    else
      CHECK_CUDA (cudaMemcpyAsync (d->img.data[p], f->img.data[p], bytes,
              cudaMemcpyHostToDevice, stream));
  }
}

/* Copies @d back into @f (unless NULL) once @stream is done, then frees
 * @d. */
static inline void
device_finish (Device * d, Frame * f, cudaStream_t stream)
{
  int p;

  for (p = 0; f && p < f->n_planes; p++)
    CHECK_CUDA (cudaMemcpyAsync (f->img.data[p], d->img.data[p],
            f->img.pitch[p] * f->h[p], cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA (cudaStreamSynchronize (stream));
  for (p = 0; p < CF_MAX_PLANES; p++)
    if (d->base[p])
      CHECK_CUDA (cudaFree (d->base[p]));
}
#endif

#endif /* CF_FRAME_H */
