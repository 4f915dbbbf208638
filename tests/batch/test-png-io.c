/* Tests of the batch tool's PNG input and output (tools/batch/png-io.h).
 *
 * Every PngSuite image in tests/data/pngsuite decodes to the documented
 * format and survives a write and a second decode bit for bit; a few have
 * known answers (computed independently from the files' filter-0 rows).
 * Broken inputs are made here: truncations, flipped CRCs, huge IHDRs, a
 * bomb, an IDAT that inflates far past the image, a text file, an
 * unreadable file. Each must give a one-line error naming the file.
 *
 * The fast path (png-inflate.h: the image data inflated and unfiltered
 * before libpng reads the file) must give what libpng alone gives, file
 * for file, over the whole PngSuite (its corrupt x* files included) and
 * over files whose IDATs were damaged at random with their CRCs made right
 * again; the SIMD filter code (png-filter.h) must give what a plain
 * transcription of the PNG specification and of libpng's rule gives, and
 * the writer the bytes of libpng's own adaptive filtering.
 *
 * CF_PNGSUITE_DIR: the images; CF_PNGSUITE_FULL_DIR: the whole PngSuite;
 * random sizes and pixels come from the seed printed at start
 * (CF_TEST_SEED=N repeats a run).
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <png.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cf-test.h"
#include "made-png.h"
#include "png-filter.h"
#include "png-inflate.h"
#include "png-io.h"

static char *tmp_dir;
static GRand *rng;

static const char *
suite_dir (void)
{
  const char *d = g_getenv ("CF_PNGSUITE_DIR");
  return d ? d : "tests/data/pngsuite";
}

static char *
suite_path (const char *name)
{
  return g_build_filename (suite_dir (), name, NULL);
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

/* g_ptr_array_sort () hands the comparator pointers to the elements, not
 * the elements: g_strcmp0 there would compare the bytes of the pointers. */
static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Sorts @names (strings) by name. */
static void
sort_names (GPtrArray * names)
{
  g_ptr_array_sort (names, compare_names);
}

/* The names of the files in @dir, sorted: the per-file random choices are
 * drawn in this order, so a seed repeats a run only if it does not depend
 * on the directory's order or where the names lie in memory. Free with
 * g_ptr_array_unref. */
static GPtrArray *
list_dir (const char *dir)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *n;

  g_assert_nonnull (d);
  while ((n = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (n));
  g_dir_close (d);
  sort_names (names);
  for (guint i = 1; i < names->len; i++)
    g_assert_cmpstr (g_ptr_array_index (names, i - 1), <,
        g_ptr_array_index (names, i));
  return names;
}

static gboolean
file_has_chunk (const char *path, const char *type)
{
  gchar *data;
  gsize len, i = 8;
  gboolean found = FALSE;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  while (i + 8 <= len && !found) {
    guint32 n = GUINT32_FROM_BE (*(guint32 *) (data + i));
    found = memcmp (data + i + 4, type, 4) == 0;
    i += 12 + (gsize) n;
  }
  g_free (data);
  return found;
}

/* The interlace method byte of IHDR. Do not trust the names: three i*
 * files of libpng's set (iftbbn2c16, iftbgn2c16, iftbrn2c08) are not
 * interlaced. */
static gboolean
file_is_interlaced (const char *path)
{
  gchar *data;
  gsize len;
  gboolean interlaced;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, >, 28);
  interlaced = data[28] == 1;
  g_free (data);
  return interlaced;
}

static void
assert_same_pixels (const CfImage * a, const CfImage * b)
{
  size_t row;

  g_assert_cmpint (a->format, ==, b->format);
  g_assert_cmpint (a->width, ==, b->width);
  g_assert_cmpint (a->height, ==, b->height);
  row = cf_plane_row_bytes (a->format, 0, a->width);
  for (int y = 0; y < a->height; y++)
    g_assert_cmpmem ((guint8 *) a->data[0] + y * a->pitch[0], row,
        (guint8 *) b->data[0] + y * b->pitch[0], row);
}

/* Reads @path, which must fail with a message that names it and contains
 * @what; returns nothing to free. */
static void
assert_read_fails (const char *path, const CfPngLimits * limits,
    const char *what)
{
  CfPngImage img;
  char err[512];

  g_assert_cmpint (cf_png_read (path, limits, &img, err, sizeof err), ==, -1);
  g_test_message ("%s", err);
  g_assert_true (g_str_has_prefix (err, path));
  g_assert_nonnull (strstr (err, what));
  g_assert_null (strchr (err, '\n'));
  g_assert_null (img.image.data[0]);
}

static void
assert_no_temp_files (void)
{
  GPtrArray *names = list_dir (tmp_dir);

  for (guint i = 0; i < names->len; i++)
    g_assert_null (strstr (g_ptr_array_index (names, i), ".tmp-"));
  g_ptr_array_unref (names);
}

/* sort_names () orders by the names, whatever their order in memory: here
 * they lie in one block in the reverse of their order. */
static void
test_sort_names (void)
{
  static const char backwards[] = "zyxwvutsrqponmlkjihgfedcba";
  const guint n = sizeof backwards - 1;
  char *block = g_malloc0 (2 * n);
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; i < n; i++) {
    block[2 * i] = backwards[i];
    g_ptr_array_add (names, block + 2 * i);
  }
  sort_names (names);
  for (guint i = 0; i < n; i++) {
    const char want[2] = { 'a' + i, 0 };
    g_assert_cmpstr (g_ptr_array_index (names, i), ==, want);
  }
  g_ptr_array_unref (names);
  g_free (block);
}

/* --------------------------------------------------------------- PngSuite */

/* What png-io.h promises for a PngSuite file: the name ends in the colour
 * type digit, a letter and the depth ("basn0g16", "ftbrn2c08"). */
static void
expected_format (const char *name, gboolean trns, CfFormat * format,
    int *color_type, int *depth)
{
  const char *dot = strrchr (name, '.');

  *color_type = dot[-4] - '0';
  *depth = atoi (dot - 2);
  switch (*color_type) {
    case 0:
      *format = trns ? (*depth == 16 ? CF_FORMAT_RGBA64_LE : CF_FORMAT_RGBA) :
          *depth == 16 ? CF_FORMAT_GRAY16_LE : CF_FORMAT_GRAY8;
      break;
    case 2:
    case 3:
      *format = *depth == 16 ? CF_FORMAT_RGBA64_LE : trns ? CF_FORMAT_RGBA :
          CF_FORMAT_RGB;
      break;
    default:
      *format = *depth == 16 ? CF_FORMAT_RGBA64_LE : CF_FORMAT_RGBA;
      break;
  }
}

static void
test_pngsuite_formats_and_round_trip (void)
{
  GPtrArray *names = list_dir (suite_dir ());
  int n_images = 0;

  for (guint i = 0; i < names->len; i++) {
    const char *name = g_ptr_array_index (names, i);
    char *path, *out;
    CfPngImage img, again;
    CfFormat format;
    int color_type, expected_type, depth, level = g_rand_int_range (rng, 0, 10);
    gboolean trns;
    char err[512];

    if (!g_str_has_suffix (name, ".png"))
      continue;
    path = suite_path (name);
    trns = file_has_chunk (path, "tRNS");
    expected_format (name, trns, &format, &color_type, &depth);
    g_test_message ("%s: tRNS %d, compression %d", name, trns, level);

    if (cf_png_read (path, NULL, &img, err, sizeof err) != 0)
      g_error ("%s", err);
    g_assert_cmpint (img.image.format, ==, format);
    g_assert_cmpint (img.image.width, ==, 32);
    g_assert_cmpint (img.image.height, ==, 32);
    g_assert_cmpint (img.png_color_type, ==, color_type);
    g_assert_cmpint (img.png_bit_depth, ==, depth);
    g_assert_cmpint (img.interlaced, ==, file_is_interlaced (path));
    g_assert_cmpint (cf_image_check (&img.image), ==, 0);

    out = tmp_path (name);
    if (cf_png_write (out, &img, level, err, sizeof err) != 0)
      g_error ("%s", err);
    if (cf_png_read (out, NULL, &again, err, sizeof err) != 0)
      g_error ("%s", err);
    assert_same_pixels (&img.image, &again.image);
    /* the writer keeps the file's type where the pixels fit it; a tRNS
     * colour key became alpha: gray + tRNS comes back as gray + alpha,
     * RGB + tRNS as RGBA */
    expected_type = !trns || color_type == 3 ? color_type :
        color_type == 0 ? PNG_COLOR_TYPE_GRAY_ALPHA : PNG_COLOR_TYPE_RGBA;
    g_assert_cmpint (again.png_color_type, ==, expected_type);
    /* and its depth: 16-bit files stay 16-bit whatever their type */
    if ((color_type == 0 && !trns) || depth == 16)
      g_assert_cmpint (again.png_bit_depth, ==, depth);
    g_assert_false (again.interlaced);

    /* an interlaced file decodes as its progressive twin */
    if (name[0] == 'i') {
      char *twin = suite_path (name + 1);
      CfPngImage progressive;
      if (g_file_test (twin, G_FILE_TEST_EXISTS)) {
        if (cf_png_read (twin, NULL, &progressive, err, sizeof err) != 0)
          g_error ("%s", err);
        assert_same_pixels (&img.image, &progressive.image);
        cf_png_image_clear (&progressive);
      }
      g_free (twin);
    }

    g_unlink (out);
    g_free (out);
    cf_png_image_clear (&again);
    cf_png_image_clear (&img);
    g_free (path);
    n_images++;
  }
  /* 15 basn, 15 ftb/ftp, their interlaced versions */
  g_assert_cmpint (n_images, >=, 60);
  assert_no_temp_files ();
  g_ptr_array_unref (names);
}

static void
read_suite (const char *name, CfPngImage * img)
{
  char *path = suite_path (name);
  char err[512];

  if (cf_png_read (path, NULL, img, err, sizeof err) != 0)
    g_error ("%s", err);
  g_free (path);
}

static void
test_known_answers (void)
{
  CfPngImage img;
  const guint8 *p;
  const guint16 *p16;
  static const guint16 g16_row0[] = { 0, 2304, 4608, 6912, 9216, 11520,
    13824, 16128, 18432, 20736, 23040, 25344, 27648, 29952, 32256, 34560,
    36864, 39168, 41472, 43776, 46080, 48384, 50688, 52992, 55296, 57600,
    59904, 62208, 64512, 61695, 54783, 47871
  };

  /* 1-bit gray, first row fffffffe: 31 white pixels, then black */
  read_suite ("basn0g01.png", &img);
  p = img.image.data[0];
  for (int x = 0; x < 31; x++)
    g_assert_cmpuint (p[x], ==, 255);
  g_assert_cmpuint (p[31], ==, 0);
  cf_png_image_clear (&img);

  /* 2-bit gray, first row 0055aaff twice: 0, 1, 2, 3 scaled by 85 */
  read_suite ("basn0g02.png", &img);
  p = img.image.data[0];
  for (int x = 0; x < 32; x++)
    g_assert_cmpuint (p[x], ==, (x / 4) % 4 * 85);
  cf_png_image_clear (&img);

  /* 16-bit gray: native values, little-endian */
  read_suite ("basn0g16.png", &img);
  p16 = img.image.data[0];
  for (int x = 0; x < 32; x++)
    g_assert_cmpuint (GUINT16_FROM_LE (p16[x]), ==, g16_row0[x]);
  cf_png_image_clear (&img);

  /* palette: index 165 is (1, 0, 0) on row 0, row 1 starts (0x11, 0, 0) */
  read_suite ("basn3p08.png", &img);
  p = img.image.data[0];
  g_assert_cmpint (img.image.format, ==, CF_FORMAT_RGB);
  g_assert_cmpuint (p[0], ==, 1);
  g_assert_cmpuint (p[1], ==, 0);
  g_assert_cmpuint (p[2], ==, 0);
  p += img.image.pitch[0];
  g_assert_cmpuint (p[0], ==, 0x11);
  g_assert_cmpuint (p[1], ==, 0);
  g_assert_cmpuint (p[2], ==, 0);
  cf_png_image_clear (&img);

  /* palette + tRNS: both alpha 0 and alpha 255 occur */
  read_suite ("ftbbn3p08.png", &img);
  {
    gboolean seen0 = FALSE, seen255 = FALSE;
    p = img.image.data[0];
    for (int i = 0; i < 32 * 32; i++) {
      seen0 |= p[4 * i + 3] == 0;
      seen255 |= p[4 * i + 3] == 255;
    }
    g_assert_true (seen0 && seen255);
  }
  cf_png_image_clear (&img);

  /* gray + alpha: R = G = B */
  read_suite ("basn4a08.png", &img);
  p = img.image.data[0];
  for (int i = 0; i < 32 * 32; i++) {
    g_assert_cmpuint (p[4 * i], ==, p[4 * i + 1]);
    g_assert_cmpuint (p[4 * i], ==, p[4 * i + 2]);
  }
  cf_png_image_clear (&img);
}

/* --------------------------------------------------------- broken inputs */

/* write_gray_png () into the test's folder; the path to free. */
static char *
make_png (const char *name, guint32 width, guint32 height, gsize raw_len)
{
  char *path = tmp_path (name);
  write_gray_png (path, width, height, raw_len);
  return path;
}

static void
test_made_png_reads (void)
{
  char *path = make_png ("made.png", 64, 48, 65 * 48);
  CfPngImage img;
  char err[512];

  if (cf_png_read (path, NULL, &img, err, sizeof err) != 0)
    g_error ("%s", err);
  g_assert_cmpint (img.image.format, ==, CF_FORMAT_GRAY8);
  g_assert_cmpint (img.image.width, ==, 64);
  cf_png_image_clear (&img);
  g_unlink (path);
  g_free (path);
}

static void
test_truncated (void)
{
  char *src = suite_path ("basn2c08.png"), *path = tmp_path ("trunc.png");
  gchar *data;
  gsize len;
  /* in the signature, in IHDR, in IDAT, in IEND's length, in its CRC */
  gsize cuts[] = { 0, 5, 8, 20, 33, 60, 0, 0, 0, 0 };
  int n_cuts = 6;

  g_assert_true (g_file_get_contents (src, &data, &len, NULL));
  cuts[n_cuts++] = len / 2;
  cuts[n_cuts++] = len - 12;
  cuts[n_cuts++] = len - 5;
  cuts[n_cuts++] = len - 1;
  for (int i = 0; i < n_cuts; i++) {
    g_test_message ("truncated at %zu of %zu", cuts[i], len);
    g_assert_true (g_file_set_contents (path, data, cuts[i], NULL));
    assert_read_fails (path, NULL, cuts[i] < 8 ? "not a PNG file" :
        cuts[i] < len - 12 ? "" : "truncated");
  }
  g_unlink (path);
  g_free (data);
  g_free (path);
  g_free (src);
}

static void
test_bad_crc (void)
{
  char *src = suite_path ("basn2c08.png"), *path = tmp_path ("crc.png");
  gchar *data;
  gsize len;
  /* the last byte of IHDR's CRC (8 + 8 + 13 + 3), and of IDAT's: the file
   * is IHDR, gAMA, IDAT, IEND */
  gsize idat_crc;

  g_assert_true (g_file_get_contents (src, &data, &len, NULL));
  data[32] ^= 1;
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  assert_read_fails (path, NULL, "CRC error");
  data[32] ^= 1;

  idat_crc = len - 12 - 1;
  data[idat_crc] ^= 0x80;
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  assert_read_fails (path, NULL, "CRC error");

  g_unlink (path);
  g_free (data);
  g_free (path);
  g_free (src);
}

static void
test_huge_ihdr (void)
{
  char *path;
  CfPngLimits small = { 1000, 0 };

  /* over CF_MAX_SIDE: libpng's user limits refuse it while reading IHDR */
  path = make_png ("huge.png", 100000, 100000, 1000);
  assert_read_fails (path, NULL, "exceeds user limit");
  g_unlink (path);
  g_free (path);

  /* sides allowed, 400 Mpixel over the default 100 */
  path = make_png ("large.png", 20000, 20000, 1000);
  assert_read_fails (path, NULL, "over the limit of 100000000 pixels");
  g_unlink (path);
  g_free (path);

  /* a limit of our own: basn0g08 is 1024 pixels */
  path = suite_path ("basn0g08.png");
  assert_read_fails (path, &small, "image is 32x32, over the limit of 1000");
  g_free (path);
}

static void
test_bombs (void)
{
  char *path;
  CfPngImage img;
  char err[512];
  gint64 start;

  /* a 30 kB file that would inflate to 900 Mpixel: refused by the limit
   * before anything is inflated or allocated */
  path = make_png ("bomb.png", 30000, 30000, 30 << 20);
  assert_read_fails (path, NULL, "over the limit");
  g_unlink (path);
  g_free (path);

  /* an IDAT that inflates to 64 MB where 4 kB make the image: libpng stops
   * inflating when the rows are full and skips the rest (as browsers do,
   * excess data is a warning), so this returns the image, at once */
  path = make_png ("endless.png", 64, 64, 64 << 20);
  start = g_get_monotonic_time ();
  if (cf_png_read (path, NULL, &img, err, sizeof err) != 0)
    g_error ("%s", err);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_assert_cmpint (img.image.width, ==, 64);
  cf_png_image_clear (&img);
  g_unlink (path);
  g_free (path);

  /* a stream that ends before the image does */
  path = make_png ("short.png", 64, 64, 65 * 32);
  assert_read_fails (path, NULL, "Not enough image data");
  g_unlink (path);
  g_free (path);
}

static void
test_not_png (void)
{
  char *path = tmp_path ("text.png");
  char *missing = tmp_path ("missing.png");

  g_assert_true (g_file_set_contents (path, "hello, world\n", -1, NULL));
  assert_read_fails (path, NULL, "not a PNG file");
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  assert_read_fails (path, NULL, "not a PNG file");
  g_unlink (path);
  assert_read_fails (missing, NULL, "cannot open: No such file");
  assert_read_fails (tmp_dir, NULL, "not a regular file");
  /* a FIFO named .png: refused at once, not waited on */
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  assert_read_fails (path, NULL, "not a regular file");
  g_unlink (path);
  g_free (missing);
  g_free (path);
}

static void
test_unreadable (void)
{
  char *src = suite_path ("basn0g08.png"), *path = tmp_path ("locked.png");
  gchar *data;
  gsize len;

  if (geteuid () == 0) {
    /* root reads a mode-000 file all the same */
    g_test_skip ("running as root, which can read a chmod 000 file");
    g_free (path);
    g_free (src);
    return;
  }
  g_assert_true (g_file_get_contents (src, &data, &len, NULL));
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  g_assert_cmpint (g_chmod (path, 0), ==, 0);
  assert_read_fails (path, NULL, "Permission denied");
  g_unlink (path);
  g_free (data);
  g_free (path);
  g_free (src);
}

/* ----------------------------------------------------------------- write */

static void
fill_random (CfPngImage * img)
{
  guint8 *p = img->image.data[0];
  size_t n = img->image.pitch[0] * img->image.height;

  for (size_t i = 0; i < n; i++)
    p[i] = g_rand_int (rng);
}

static void
round_trip (const CfPngImage * img, const char *name, int level)
{
  char *path = tmp_path (name);
  CfPngImage again;
  char err[512];

  if (cf_png_write (path, img, level, err, sizeof err) != 0)
    g_error ("%s", err);
  if (cf_png_read (path, NULL, &again, err, sizeof err) != 0)
    g_error ("%s", err);
  assert_same_pixels (&img->image, &again.image);
  cf_png_image_clear (&again);
  g_unlink (path);
  g_free (path);
}

static void
test_write_random (void)
{
  static const CfFormat formats[] = { CF_FORMAT_GRAY8, CF_FORMAT_GRAY16_LE,
    CF_FORMAT_RGB, CF_FORMAT_RGBA
  };

  for (int i = 0; i < 4; i++) {
    CfPngImage img;
    int w = g_rand_int_range (rng, 1, 300), h = g_rand_int_range (rng, 1, 200);

    g_assert_cmpint (cf_png_image_alloc (&img, formats[i], w, h), ==, 0);
    fill_random (&img);
    round_trip (&img, "random.png", g_rand_int_range (rng, 0, 10));
    /* hints the pixels do not fit: > 256 colours, gray off the 4-bit
     * scale, colour where gray was: the writer falls back */
    img.png_color_type = PNG_COLOR_TYPE_PALETTE;
    round_trip (&img, "palette-hint.png", 1);
    img.png_color_type = PNG_COLOR_TYPE_GRAY;
    img.png_bit_depth = 4;
    round_trip (&img, "gray-hint.png", 9);
    img.png_color_type = PNG_COLOR_TYPE_GRAY_ALPHA;
    round_trip (&img, "ga-hint.png", 0);
    cf_png_image_clear (&img);
  }
  assert_no_temp_files ();
}

/* Writes @img with @strategy; returns the file's bytes after checking that
 * it decodes to the same pixels. */
static GBytes *
write_with (const CfPngImage * img, CfPngStrategy strategy)
{
  char *path = tmp_path ("strategy.png");
  CfPngImage again;
  char err[512];
  gchar *data;
  gsize len;

  if (cf_png_write_with (path, img, 6, strategy, err, sizeof err) != 0)
    g_error ("%s", err);
  if (cf_png_read (path, NULL, &again, err, sizeof err) != 0)
    g_error ("%s", err);
  assert_same_pixels (&img->image, &again.image);
  cf_png_image_clear (&again);
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_unlink (path);
  g_free (path);
  return g_bytes_new_take (data, len);
}

/* Every strategy is lossless; auto writes what rle writes for a
 * photograph-like picture (a gradient with noise) and what default writes
 * for a drawing (a tile of many colours repeated), the smaller file in both
 * cases. */
static void
test_write_strategies (void)
{
  for (int kind = 0; kind < 2; kind++) {
    CfPngImage img;
    guint8 *p;
    GBytes *def, *rle, *aut;

    g_assert_cmpint (cf_png_image_alloc (&img, CF_FORMAT_RGB, 640, 480), ==,
        0);
    p = img.image.data[0];
    for (int y = 0; y < 480; y++)
      for (int x = 0; x < 640; x++)
        for (int c = 0; c < 3; c++) {
          int v = kind == 0 ? (x * (c + 1) + y * 2) / 8
              + g_rand_int_range (rng, -6, 7)
              : ((x % 37) * 7 + (y % 23) * 11 + c * 50) % 256;
          p[(size_t) y * img.image.pitch[0] + 3 * x + c] = CLAMP (v, 0, 255);
        }
    def = write_with (&img, CF_PNG_STRATEGY_DEFAULT);
    rle = write_with (&img, CF_PNG_STRATEGY_RLE);
    aut = write_with (&img, CF_PNG_STRATEGY_AUTO);
    g_test_message ("%s: default %" G_GSIZE_FORMAT " bytes, rle %"
        G_GSIZE_FORMAT, kind == 0 ? "photograph-like" : "drawing",
        g_bytes_get_size (def), g_bytes_get_size (rle));
    if (kind == 0) {
      g_assert_true (g_bytes_equal (aut, rle));
      g_assert_cmpuint (g_bytes_get_size (rle) * 100, <=,
          g_bytes_get_size (def) * 103);
    } else {
      g_assert_true (g_bytes_equal (aut, def));
      g_assert_cmpuint (g_bytes_get_size (def), <, g_bytes_get_size (rle));
    }
    g_bytes_unref (def);
    g_bytes_unref (rle);
    g_bytes_unref (aut);
    cf_png_image_clear (&img);
  }
  assert_no_temp_files ();
}

static void
test_write_replaces_and_cleans_up (void)
{
  CfPngImage img, back;
  char *path = tmp_path ("out.png"), *missing_dir, *dir_target;
  char err[512];
  GStatBuf st;
  mode_t mask;

  g_assert_cmpint (cf_png_image_alloc (&img, CF_FORMAT_RGB, 7, 5), ==, 0);
  g_assert_cmpint (cf_png_write (path, &img, 6, err, sizeof err), ==, 0);
  /* not mkstemp's 0600: what open () would give */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  mask = umask (022);
  umask (mask);
  g_assert_cmpint (st.st_mode & 0777, ==, 0666 & ~mask);
  fill_random (&img);
  g_assert_cmpint (cf_png_write (path, &img, 6, err, sizeof err), ==, 0);
  g_assert_cmpint (cf_png_read (path, NULL, &back, err, sizeof err), ==, 0);
  assert_same_pixels (&img.image, &back.image);
  cf_png_image_clear (&back);
  assert_no_temp_files ();

  /* errors: each names the file and leaves nothing behind */
  g_assert_cmpint (cf_png_write (path, &img, 10, err, sizeof err), ==, -1);
  g_assert_nonnull (strstr (err, "compression level 10"));
  missing_dir = g_build_filename (tmp_dir, "no-such-dir", "out.png", NULL);
  g_assert_cmpint (cf_png_write (missing_dir, &img, 6, err, sizeof err), ==,
      -1);
  g_test_message ("%s", err);
  g_assert_true (g_str_has_prefix (err, missing_dir));
  g_assert_nonnull (strstr (err, "No such file"));
  /* fails at the rename, after the whole file was written */
  dir_target = tmp_path ("a-directory.png");
  g_assert_cmpint (g_mkdir (dir_target, 0755), ==, 0);
  g_assert_cmpint (cf_png_write (dir_target, &img, 6, err, sizeof err), ==, -1);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "cannot rename"));
  g_rmdir (dir_target);
  assert_no_temp_files ();

  if (geteuid () != 0) {
    char *ro = tmp_path ("read-only"), *ro_out;
    g_assert_cmpint (g_mkdir (ro, 0555), ==, 0);
    ro_out = g_build_filename (ro, "out.png", NULL);
    g_assert_cmpint (cf_png_write (ro_out, &img, 6, err, sizeof err), ==, -1);
    g_test_message ("%s", err);
    g_assert_nonnull (strstr (err, "Permission denied"));
    g_rmdir (ro);
    g_free (ro_out);
    g_free (ro);
  }

  img.image.format = CF_FORMAT_NV12;
  g_assert_cmpint (cf_png_write (path, &img, 6, err, sizeof err), ==, -1);
  g_assert_nonnull (strstr (err, "cannot write a NV12 image"));
  img.image.format = CF_FORMAT_RGB;

  g_unlink (path);
  assert_no_temp_files ();
  cf_png_image_clear (&img);
  g_free (dir_target);
  g_free (missing_dir);
  g_free (path);
}

/* The tool decodes on a thread pool: many threads reading and writing at
 * once must give what one thread gives. */
static gpointer
decode_all (gpointer data)
{
  GPtrArray *names = list_dir (suite_dir ());
  char *out = g_strdup_printf ("%s/thread-%p.png", tmp_dir, data);
  gboolean ok = TRUE;

  for (int round = 0; round < 4; round++)
    for (guint i = 0; i < names->len; i++) {
      const char *name = g_ptr_array_index (names, i);
      char *path = suite_path (name);
      CfPngImage a, b;
      char err[512];
      if (g_str_has_suffix (name, ".png")) {
        ok &= cf_png_read (path, NULL, &a, err, sizeof err) == 0;
        ok &= cf_png_write (out, &a, 1, err, sizeof err) == 0;
        ok &= cf_png_read (out, NULL, &b, err, sizeof err) == 0;
        ok &= a.image.format == b.image.format && memcmp (a.image.data[0],
            b.image.data[0], a.image.pitch[0] * a.image.height) == 0;
        cf_png_image_clear (&a);
        cf_png_image_clear (&b);
      }
      g_free (path);
    }
  g_unlink (out);
  g_free (out);
  g_ptr_array_unref (names);
  return GINT_TO_POINTER (ok);
}

static void
test_threads (void)
{
  GThread *threads[8];

  for (int i = 0; i < 8; i++)
    threads[i] = g_thread_new ("png", decode_all, &threads[i]);
  for (int i = 0; i < 8; i++)
    g_assert_true (GPOINTER_TO_INT (g_thread_join (threads[i])));
  assert_no_temp_files ();
}

/* ------------------------------------------------------- the fast path */

static const char *
full_suite_dir (void)
{
  const char *d = g_getenv ("CF_PNGSUITE_FULL_DIR");
  return d ? d : "tests/data/pngsuite-full";
}

static const CfPngLimits libpng_alone = { 0, 0, 1 };

/* Reads @path both ways, libpng alone and the fast path: the same
 * answer, the same pixels, type and depth, or both an error naming the
 * file. Returns whether it decoded. */
static gboolean
assert_paths_agree (const char *path)
{
  CfPngImage a, b;
  char err_a[512], err_b[512];
  int ra = cf_png_read (path, &libpng_alone, &a, err_a, sizeof err_a);
  int rb = cf_png_read (path, NULL, &b, err_b, sizeof err_b);

  if (ra != rb)
    g_error ("%s: libpng alone %s, the fast path %s", path,
        ra ? err_a : "decodes", rb ? err_b : "decodes");
  if (ra != 0) {
    g_assert_true (g_str_has_prefix (err_b, path));
    g_assert_null (strchr (err_b, '\n'));
    g_assert_null (b.image.data[0]);
    return FALSE;
  }
  assert_same_pixels (&a.image, &b.image);
  g_assert_cmpint (a.png_color_type, ==, b.png_color_type);
  g_assert_cmpint (a.png_bit_depth, ==, b.png_bit_depth);
  g_assert_cmpint (a.interlaced, ==, b.interlaced);
  cf_png_image_clear (&a);
  cf_png_image_clear (&b);
  return TRUE;
}

/* Whether png-inflate.c takes @path itself (rather than leaving it to
 * libpng) */
static gboolean
fast_path_takes (const char *path)
{
  gchar *data;
  gsize len;
  CfPngInflated f;
  CfPngBuffer buf = { 0 };
  gboolean taken;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  taken = cf_png_inflate_image (&f, (const uint8_t *) data, len,
      CF_PNG_DEFAULT_MAX_PIXELS, &buf) == 0;
  cf_png_inflated_clear (&f);
  cf_png_buffer_free (&buf);
  g_free (data);
  return taken;
}

/* The whole PngSuite and libpng's: the same answers both ways; the fast
 * path takes every valid file, and no corrupt one decodes. */
static void
test_fast_path_pngsuite (void)
{
  const char *dirs[2] = { full_suite_dir (), suite_dir () };
  int decoded = 0, refused = 0;

  g_test_message ("inflater: %s", cf_png_inflater_name ());
  for (int d = 0; d < 2; d++) {
    GPtrArray *names = list_dir (dirs[d]);

    for (guint i = 0; i < names->len; i++) {
      const char *name = g_ptr_array_index (names, i);
      char *path = g_build_filename (dirs[d], name, NULL);
      gboolean ok;

      if (g_str_has_suffix (name, ".png")) {
        ok = assert_paths_agree (path);
        g_assert_cmpint (ok, ==, name[0] != 'x');
        if (ok) {
          decoded++;
          if (!fast_path_takes (path))
            g_error ("%s: the fast path does not take it", path);
        } else {
          refused++;
        }
      }
      g_free (path);
    }
    g_ptr_array_unref (names);
  }
  g_test_message ("%d files decoded, %d refused", decoded, refused);
  /* 162 + 14 of the full suite, the 60 of libpng's */
  g_assert_cmpint (decoded, >=, 220);
  g_assert_cmpint (refused, ==, 14);
}

/* Offsets of the IDAT chunks of @data (a PNG file) in @at, up to 64 */
static int
find_idats (const guint8 * data, gsize len, gsize * at)
{
  int n = 0;

  for (gsize i = 8; i + 12 <= len && n < 64;) {
    guint32 l = GUINT32_FROM_BE (*(guint32 *) (data + i));
    if (memcmp (data + i + 4, "IDAT", 4) == 0)
      at[n++] = i;
    i += 12 + (gsize) l;
  }
  return n;
}

/* Damaged image data with right CRCs: bytes of the IDATs changed at
 * random (in the zlib header, the deflate blocks, the Adler-32), then every
 * IDAT's CRC computed again, so that only the zlib stream can tell. Both
 * paths must agree on every file: an error, or the same pixels (a change
 * that keeps the stream valid, such as in a stored block's data with its
 * Adler-32 also changed, cannot happen by chance here). */
static void
test_fast_path_damaged (void)
{
  static const char *names[] = { "basn2c08.png", "basi6a16.png",
    "oi4n2c16.png", "z00n2c08.png", "z09n2c08.png", "f04n2c08.png",
    "basn3p04.png", "s35i3p04.png"
  };
  char *out = tmp_path ("damaged.png");
  int agreed_errors = 0;

  for (guint k = 0; k < G_N_ELEMENTS (names); k++) {
    char *path = g_build_filename (full_suite_dir (), names[k], NULL);
    gchar *orig;
    gsize len, idat[64];
    int n;

    g_assert_true (g_file_get_contents (path, &orig, &len, NULL));
    n = find_idats ((guint8 *) orig, len, idat);
    g_assert_cmpint (n, >, 0);
    for (int round = 0; round < 60; round++) {
      guint8 *data = g_memdup2 (orig, len);
      int flips = g_rand_int_range (rng, 1, 4);

      for (int j = 0; j < flips; j++) {
        gsize at = idat[g_rand_int_range (rng, 0, n)];
        guint32 l = GUINT32_FROM_BE (*(guint32 *) (data + at));
        if (l)
          data[at + 8 + g_rand_int_range (rng, 0, l)] ^=
              1 << g_rand_int_range (rng, 0, 8);
      }
      for (int j = 0; j < n; j++) {
        guint32 l = GUINT32_FROM_BE (*(guint32 *) (data + idat[j]));
        guint32 crc = GUINT32_TO_BE (crc32 (0, data + idat[j] + 4, 4 + l));
        memcpy (data + idat[j] + 8 + l, &crc, 4);
      }
      g_assert_true (g_file_set_contents (out, (char *) data, len, NULL));
      agreed_errors += !assert_paths_agree (out);
      g_free (data);
    }
    g_free (orig);
    g_free (path);
  }
  g_test_message ("%d of %d damaged files refused by both",
      agreed_errors, (int) G_N_ELEMENTS (names) * 60);
  g_assert_cmpint (agreed_errors, >, 0);
  g_unlink (out);
  g_free (out);
}

/* The PNG specification's filters, to check png-filter.c against */
static int
ref_paeth (int a, int b, int c)
{
  int p = a + b - c, pa = abs (p - a), pb = abs (p - b), pc = abs (p - c);

  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Filtered byte @i of @row (of @n bytes) under @type, @prev above */
static guint8
ref_filter (int type, const guint8 * row, const guint8 * prev, gsize i,
    int bpp)
{
  int a = i >= (gsize) bpp ? row[i - bpp] : 0, b = prev[i];
  int c = i >= (gsize) bpp ? prev[i - bpp] : 0;
  int pred[5] = { 0, a, b, (a + b) / 2, ref_paeth (a, b, c) };

  return (guint8) (row[i] - pred[type]);
}

/* Random rows filtered by the specification, each with a type drawn at
 * random, undone by cf_png_unfilter_rows (); and the filter that
 * cf_png_choose_filter () picks against the least sum found here. Every
 * bpp and lengths around the SIMD widths. */
static void
test_filters (void)
{
  static const int bpps[] = { 1, 2, 3, 4, 6, 8 };

  for (guint k = 0; k < G_N_ELEMENTS (bpps); k++)
    for (int round = 0; round < 40; round++) {
      const int bpp = bpps[k];
      const gsize n = bpp * (gsize) g_rand_int_range (rng, 1,
          round < 20 ? 12 : 400);
      const int rows = g_rand_int_range (rng, 1, 6);
      guint8 *raw = g_malloc ((gsize) rows * n);
      guint8 *data = g_malloc ((gsize) rows * (n + 1));
      guint8 *zero = g_malloc0 (n);

      /* smooth rows, so that every filter wins somewhere */
      for (gsize i = 0; i < (gsize) rows * n; i++)
        raw[i] = round % 2 ? g_rand_int (rng) :
            (guint8) (i / 7 + g_rand_int_range (rng, 0, 3));
      for (int y = 0; y < rows; y++) {
        const guint8 *row = raw + y * n, *prev = y ? row - n : zero;
        guint64 sums[5] = { 0 };
        int type = g_rand_int_range (rng, 0, 5), best = 0;

        data[y * (n + 1)] = type;
        for (gsize i = 0; i < n; i++)
          data[y * (n + 1) + 1 + i] = ref_filter (type, row, prev, i, bpp);
        for (int t = 0; t < 5; t++)
          for (gsize i = 0; i < n; i++) {
            guint8 v = ref_filter (t, row, prev, i, bpp);
            sums[t] += v < 128 ? v : 256 - v;
          }
        for (int t = 1; t < 5; t++)
          if (sums[t] < sums[best])
            best = t;
        g_assert_cmpint (cf_png_choose_filter (row, prev, n, bpp), ==, best);
      }
      g_assert_cmpint (cf_png_unfilter_rows (data, rows, n, bpp), ==, 0);
      for (int y = 0; y < rows; y++) {
        g_assert_cmpint (data[y * (n + 1)], ==, 0);
        g_assert_cmpmem (data + y * (n + 1) + 1, n, raw + y * n, n);
      }
      data[0] = 5;
      g_assert_cmpint (cf_png_unfilter_rows (data, rows, n, bpp), ==, -1);
      g_free (zero);
      g_free (data);
      g_free (raw);
    }
}

/* cf_png_write () sets each row's filter itself: the file must be the one
 * libpng writes when it chooses them (its default adaptive filtering),
 * byte for byte, for every type that libpng filters adaptively. */
static void
test_writer_same_as_libpng (void)
{
  static const struct
  {
    CfFormat format;
    int color_type, depth;
  } cases[] = {
    {CF_FORMAT_GRAY8, PNG_COLOR_TYPE_GRAY, 8},
    {CF_FORMAT_GRAY16_LE, PNG_COLOR_TYPE_GRAY, 16},
    {CF_FORMAT_RGB, PNG_COLOR_TYPE_RGB, 8},
    {CF_FORMAT_RGBA, PNG_COLOR_TYPE_RGB_ALPHA, 8},
    {CF_FORMAT_RGBA64_LE, PNG_COLOR_TYPE_RGB_ALPHA, 16},
  };
  char *ours = tmp_path ("ours.png"), *theirs = tmp_path ("theirs.png");

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    CfPngImage img;
    int w = g_rand_int_range (rng, 2, 200), h = g_rand_int_range (rng, 2, 60);
    int level = g_rand_int_range (rng, 1, 10);
    char err[512];
    FILE *fp;
    png_structp png;
    png_infop info;
    gchar *a, *b;
    gsize la, lb;

    g_assert_cmpint (cf_png_image_alloc (&img, cases[k].format, w, h), ==, 0);
    /* a gradient with noise: the filters' sums close, every type used */
    for (size_t i = 0; i < img.image.pitch[0] * h; i++)
      ((guint8 *) img.image.data[0])[i] = (guint8) (i % 251 / 3
          + g_rand_int_range (rng, 0, 1 + (int) (i % 5)));
    if (cf_png_write_with (ours, &img, level, CF_PNG_STRATEGY_DEFAULT, err,
            sizeof err) != 0)
      g_error ("%s", err);

    fp = fopen (theirs, "wb");
    g_assert_nonnull (fp);
    png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    info = png_create_info_struct (png);
    g_assert_true (png && info);
    if (setjmp (png_jmpbuf (png)))
      g_error ("libpng failed");
    png_init_io (png, fp);
    png_set_compression_level (png, level);
    png_set_IHDR (png, info, w, h, cases[k].depth, cases[k].color_type,
        PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
        PNG_FILTER_TYPE_DEFAULT);
    png_write_info (png, info);
    if (cases[k].depth == 16)
      png_set_swap (png);
    for (int y = 0; y < h; y++)
      png_write_row (png, (png_bytep) img.image.data[0] +
          y * img.image.pitch[0]);
    png_write_end (png, NULL);
    png_destroy_write_struct (&png, &info);
    fclose (fp);

    g_assert_true (g_file_get_contents (ours, &a, &la, NULL));
    g_assert_true (g_file_get_contents (theirs, &b, &lb, NULL));
    g_test_message ("%s %dx%d level %d: %" G_GSIZE_FORMAT " bytes",
        cf_format_info (cases[k].format)->name, w, h, level, la);
    g_assert_cmpmem (a, la, b, lb);
    g_free (a);
    g_free (b);
    cf_png_image_clear (&img);
  }
  g_unlink (ours);
  g_unlink (theirs);
  g_free (ours);
  g_free (theirs);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (cf_test_seed ());
  tmp_dir = g_dir_make_tmp ("cf-png-io-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/png-io/sort-names", test_sort_names);
  g_test_add_func ("/png-io/pngsuite", test_pngsuite_formats_and_round_trip);
  g_test_add_func ("/png-io/known-answers", test_known_answers);
  g_test_add_func ("/png-io/made-png", test_made_png_reads);
  g_test_add_func ("/png-io/truncated", test_truncated);
  g_test_add_func ("/png-io/bad-crc", test_bad_crc);
  g_test_add_func ("/png-io/huge-ihdr", test_huge_ihdr);
  g_test_add_func ("/png-io/bombs", test_bombs);
  g_test_add_func ("/png-io/not-png", test_not_png);
  g_test_add_func ("/png-io/unreadable", test_unreadable);
  g_test_add_func ("/png-io/write-random", test_write_random);
  g_test_add_func ("/png-io/write-strategies", test_write_strategies);
  g_test_add_func ("/png-io/write-cleanup", test_write_replaces_and_cleans_up);
  g_test_add_func ("/png-io/threads", test_threads);
  g_test_add_func ("/png-io/fast-path-pngsuite", test_fast_path_pngsuite);
  g_test_add_func ("/png-io/fast-path-damaged", test_fast_path_damaged);
  g_test_add_func ("/png-io/filters", test_filters);
  g_test_add_func ("/png-io/writer-same-as-libpng",
      test_writer_same_as_libpng);
  ret = g_test_run ();

  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  g_rand_free (rng);
  return ret;
}
