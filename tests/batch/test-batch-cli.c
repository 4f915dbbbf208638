/* Tests of the command-line tool cudafilters-batch, once per backend.
 *
 * Runs the tool (CF_BATCH_TOOL, set by meson) on folders made here from
 * PngSuite images (CF_PNGSUITE_DIR), random pictures and broken files, and
 * checks the files it writes with png-io.h and the kernel library's CPU
 * references. Every run gets --backend NAME of the backend under test
 * (CF_TEST_BACKEND, see cf-test.h) unless the test passes its own; the
 * CUDA run exits 77 (skipped) where no CUDA device works.
 *
 * /batch-cli/backend-equality runs each operation with --backend cpu and
 * with the backend under test and wants the same pixels and statistics,
 * byte for byte: on the CPU run a determinism check (other --jobs), on the
 * CUDA run the GPU against the CPU.
 *
 * /batch-cli/stencil-rules gives --stencil the rows of settings the
 * element's test sets as properties: both take and refuse the same.
 * /batch-cli/stats-resume and /batch-cli/stale-temps rerun the tool on its
 * own outputs: the statistics file stays whole, a killed run's temporary
 * files go.
 *
 * /batch-cli/interrupt, /batch-cli/kill and /batch-cli/double-signal send
 * SIGINT, SIGTERM and SIGKILL to a running tool: an interrupted run ends
 * the files in progress and exits 130, and no *.png of the output folder
 * is ever a partial file. No timing is asserted; the timeouts are generous.
 *
 * Random pictures come from the seed printed at start (CF_TEST_SEED=N
 * repeats a run).
 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <png.h>
#include <zlib.h>

#include "cf-stencil-rules.h"
#include "cf-test.h"
#include "made-png.h"
#include "png-io.h"
#include "resize.h"

/* the tool's exit status after SIGINT or SIGTERM */
#define EXIT_INTERRUPTED 130

/* seconds; generous, for a slow CI machine */
#define START_TIMEOUT 120
#define EXIT_TIMEOUT 300

static char *tmp_dir;
static GRand *rng;

static const char *const good_files[] = {
  "basn0g08.png", "basn0g16.png", "basn2c08.png", "basn3p04.png",
  "basn6a08.png", "basn4a08.png", "ibasn2c08.png", NULL
};

static const char *
suite_dir (void)
{
  const char *d = g_getenv ("CF_PNGSUITE_DIR");
  return d ? d : "tests/data/pngsuite";
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static void
copy_suite_file (const char *name, const char *to_dir, const char *to_name)
{
  char *src = g_build_filename (suite_dir (), name, NULL);
  char *dst = g_build_filename (to_dir, to_name ? to_name : name, NULL);
  gchar *data;
  gsize len;

  g_assert_true (g_file_get_contents (src, &data, &len, NULL));
  g_assert_true (g_file_set_contents (dst, data, len, NULL));
  g_free (data);
  g_free (dst);
  g_free (src);
}

/* A fresh folder under the test's temporary folder. */
static char *
make_dir (const char *name)
{
  char *d = tmp_path (name);
  g_assert_cmpint (g_mkdir_with_parents (d, 0755), ==, 0);
  return d;
}

static void
remove_tree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d) {
    while ((name = g_dir_read_name (d))) {
      char *p = g_build_filename (path, name, NULL);
      remove_tree (p);
      g_free (p);
    }
    g_dir_close (d);
  }
  g_remove (path);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in @dir, sorted; free with g_ptr_array_unref. */
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
  g_ptr_array_sort (names, compare_names);
  return names;
}

/* What the tool takes for a PNG file: the name ends in .png, any case. */
static gboolean
is_png_name (const char *name)
{
  size_t n = strlen (name);
  return n > 4 && g_ascii_strcasecmp (name + n - 4, ".png") == 0;
}

static gboolean
is_temp_name (const char *name)
{
  return strstr (name, ".tmp-") != NULL;
}

/* The tool's argument vector: @args, then --backend NAME of the backend
 * under test unless @args has a --backend of its own. */
static char **
tool_argv (GPtrArray * args)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  const char *tool = g_getenv ("CF_BATCH_TOOL");
  gboolean own_backend = FALSE;

  g_assert_nonnull (tool);
  g_ptr_array_add (argv, g_strdup (tool));
  for (guint i = 0; i < args->len; i++) {
    const char *a = g_ptr_array_index (args, i);
    own_backend |= !strcmp (a, "--backend")
        || g_str_has_prefix (a, "--backend=");
    g_ptr_array_add (argv, g_strdup (a));
  }
  if (!own_backend) {
    g_ptr_array_add (argv, g_strdup ("--backend"));
    g_ptr_array_add (argv, g_strdup (cf_test_backend_name ()));
  }
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

/* Runs the tool with @args; returns its exit status, its stdout and stderr
 * in @out and @err (may be NULL). */
static int
run_tool_args (GPtrArray * args, char **out, char **err)
{
  char **argv = tool_argv (args);
  GError *error = NULL;
  char *o = NULL, *e = NULL, *cmd;
  int status = -1;

  cmd = g_strjoinv (" ", argv);
  g_test_message ("running %s", cmd);
  g_free (cmd);
  g_assert_true (g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
          &o, &e, &status, &error));
  g_assert_no_error (error);
  g_strfreev (argv);
  if (!g_test_quiet ())
    g_printerr ("%s%s", o, e);
  if (out)
    *out = o;
  else
    g_free (o);
  if (err)
    *err = e;
  else
    g_free (e);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* The same, the arguments NULL-terminated. */
static int
run_tool (char **out, char **err, ...)
{
  GPtrArray *args = g_ptr_array_new ();
  const char *a;
  va_list ap;
  int ret;

  va_start (ap, err);
  while ((a = va_arg (ap, const char *)))
      g_ptr_array_add (args, (gpointer) a);
  va_end (ap);
  ret = run_tool_args (args, out, err);
  g_ptr_array_unref (args);
  return ret;
}

static void
read_png (const char *path, CfPngImage * img)
{
  char err[512];
  int ret = cf_png_read (path, NULL, img, err, sizeof (err));
  if (ret < 0)
    g_error ("%s", err);
}

static void
write_png (const char *path, const CfPngImage * img, int compression)
{
  char err[512];
  if (cf_png_write (path, img, compression, err, sizeof (err)) < 0)
    g_error ("%s", err);
}

static void
assert_same_pixels (const CfImage * a, const CfImage * b)
{
  size_t row = cf_plane_row_bytes (a->format, 0, a->width);

  g_assert_cmpint (a->format, ==, b->format);
  g_assert_cmpint (a->width, ==, b->width);
  g_assert_cmpint (a->height, ==, b->height);
  for (int y = 0; y < a->height; y++)
    g_assert_cmpmem ((guint8 *) a->data[0] + y * a->pitch[0], row,
        (guint8 *) b->data[0] + y * b->pitch[0], row);
}

static void
assert_same_files (const char *a, const char *b)
{
  CfPngImage ia = { 0 }, ib = { 0 };
  g_test_message ("comparing %s and %s", a, b);
  read_png (a, &ia);
  read_png (b, &ib);
  assert_same_pixels (&ia.image, &ib.image);
  cf_png_image_clear (&ia);
  cf_png_image_clear (&ib);
}

/* @a and @b (text files) hold the same bytes; names the first line that
 * differs when they do not. */
static void
assert_same_text_files (const char *a, const char *b)
{
  gchar *ta, *tb;
  gsize la, lb;

  g_assert_true (g_file_get_contents (a, &ta, &la, NULL));
  g_assert_true (g_file_get_contents (b, &tb, &lb, NULL));
  if (la != lb || memcmp (ta, tb, la) != 0) {
    char **A = g_strsplit (ta, "\n", -1), **B = g_strsplit (tb, "\n", -1);
    guint i = 0;
    while (A[i] && B[i] && !strcmp (A[i], B[i]))
      i++;
    g_error ("%s and %s differ at line %u:\n%.300s\n%.300s", a, b, i + 1,
        A[i] ? A[i] : "(end)", B[i] ? B[i] : "(end)");
  }
  g_free (ta);
  g_free (tb);
}

static guint
count_lines_with (const char *text, const char *what)
{
  char **lines = g_strsplit (text, "\n", -1);
  guint n = 0;
  for (int i = 0; lines[i]; i++)
    n += strstr (lines[i], what) != NULL;
  g_strfreev (lines);
  return n;
}

static guint
count_nonempty_lines (const char *text)
{
  char **lines = g_strsplit (text, "\n", -1);
  guint n = 0;
  for (int i = 0; lines[i]; i++)
    n += lines[i][0] != '\0';
  g_strfreev (lines);
  return n;
}

/* A @width x @height picture of @format with random samples. */
static void
random_image (CfPngImage * img, CfFormat format, int width, int height)
{
  guint8 *p;
  size_t n;

  g_assert_cmpint (cf_png_image_alloc (img, format, width, height), ==, 0);
  p = img->image.data[0];
  n = img->image.pitch[0] * height;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    guint32 r = g_rand_int (rng);
    memcpy (p + i, &r, 4);
  }
  for (size_t i = n & ~(size_t)3; i < n; i++)
    p[i] = g_rand_int (rng);
}

static void
write_random_png (const char *dir, const char *name, CfFormat format,
    int width, int height)
{
  CfPngImage img;
  char *path = g_build_filename (dir, name, NULL);

  random_image (&img, format, width, height);
  write_png (path, &img, 6);
  cf_png_image_clear (&img);
  g_free (path);
}

/* TRUE when a CUDA device works here. Probed in a child, as
 * cf_test_require_backend () does, so that this process keeps no CUDA
 * context. */
static gboolean
cuda_device_works (void)
{
  int status = 0;
  pid_t pid;

  fflush (stdout);
  fflush (stderr);
  pid = fork ();
  if (pid == 0)
    _exit (cf_test_cuda_works ()? 0 : 1);
  g_assert_cmpint (pid, >, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* The summary line of @out: "processed A, skipped B, failed C[, not
 * started D], in T s"; D is 0 when the part is absent. */
static void
parse_summary (const char *out, guint * processed, guint * skipped,
    guint * failed, guint * not_started)
{
  const char *line = strstr (out, "processed ");
  const char *ns;

  g_assert_nonnull (line);
  g_assert_cmpint (sscanf (line, "processed %u, skipped %u, failed %u",
          processed, skipped, failed), ==, 3);
  ns = strstr (line, ", not started ");
  *not_started = 0;
  if (ns && (!strchr (line, '\n') || ns < strchr (line, '\n')))
    g_assert_cmpint (sscanf (ns, ", not started %u", not_started), ==, 1);
}

/* --------------------------------------------------- the first tests */

/* The good files re-encoded losslessly, each bad file a line on stderr,
 * exit status 1 and the failures counted in the summary. */
static void
test_no_op_and_bad_files (void)
{
  char *in = make_dir ("noop-in"), *out = tmp_path ("noop-out");
  char *o, *e, *p;

  for (int i = 0; good_files[i]; i++)
    copy_suite_file (good_files[i], in, NULL);
  p = g_build_filename (in, "bad.png", NULL);
  g_assert_true (g_file_set_contents (p, "not a picture\n", -1, NULL));
  g_free (p);
  {
    char *src = g_build_filename (in, "basn2c08.png", NULL);
    gchar *data;
    gsize len;
    g_assert_true (g_file_get_contents (src, &data, &len, NULL));
    p = g_build_filename (in, "trunc.png", NULL);
    g_assert_true (g_file_set_contents (p, data, len / 2, NULL));
    g_free (p);
    g_free (data);
    g_free (src);
  }

  g_assert_cmpint (run_tool (&o, &e, "--jobs", "3", in, out, NULL), ==, 1);
  g_assert_cmpuint (count_lines_with (e, "bad.png"), ==, 1);
  g_assert_cmpuint (count_lines_with (e, "trunc.png"), ==, 1);
  g_assert_cmpuint (count_lines_with (e, "cudafilters-batch: "), ==, 2);
  g_assert_nonnull (strstr (o, "processed 7, skipped 0, failed 2"));
  for (int i = 0; good_files[i]; i++) {
    char *a = g_build_filename (in, good_files[i], NULL);
    char *b = g_build_filename (out, good_files[i], NULL);
    assert_same_files (a, b);
    g_free (a);
    g_free (b);
  }
  p = g_build_filename (out, "bad.png", NULL);
  g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
  g_free (p);
  g_free (o);
  g_free (e);
  g_free (in);
  g_free (out);
}

/* Decodes @path with libpng itself, not png-io: every colour type expanded
 * to R, G, B, A samples (palette and low-bit gray expanded, tRNS to alpha,
 * gray copied, an opaque alpha added) at the file's own depth, 8 or 16
 * bits, big-endian as stored. Returns the samples (g_free), and @depth;
 * NULL for a file libpng rejects. */
static guint8 *
decode_native (const char *path, int *width, int *height, int *depth)
{
  png_structp png;
  png_infop info;
  png_bytep *rows = NULL;
  guint8 *volatile pixels = NULL;
  FILE *f = fopen (path, "rb");
  int d, type;

  g_assert_nonnull (f);
  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png_create_info_struct (png);
  if (setjmp (png_jmpbuf (png))) {
    png_destroy_read_struct (&png, &info, NULL);
    fclose (f);
    g_free (rows);
    g_free (pixels);
    return NULL;
  }
  png_init_io (png, f);
  png_read_info (png, info);
  d = png_get_bit_depth (png, info);
  type = png_get_color_type (png, info);
  png_set_expand (png);
  if (!(type & PNG_COLOR_MASK_COLOR))
    png_set_gray_to_rgb (png);
  if (!(type & PNG_COLOR_MASK_ALPHA) && !png_get_valid (png, info,
          PNG_INFO_tRNS))
    png_set_add_alpha (png, d == 16 ? 0xffff : 0xff, PNG_FILLER_AFTER);
  png_set_interlace_handling (png);
  png_read_update_info (png, info);
  *width = png_get_image_width (png, info);
  *height = png_get_image_height (png, info);
  *depth = png_get_bit_depth (png, info);
  g_assert_cmpint (png_get_channels (png, info), ==, 4);
  g_assert_cmpuint (png_get_rowbytes (png, info), ==,
      (gsize) * width * 4 * (*depth / 8));
  pixels = g_malloc ((gsize) * width * *height * 4 * (*depth / 8));
  rows = g_new (png_bytep, *height);
  for (int y = 0; y < *height; y++)
    rows[y] = pixels + (gsize) y * *width * 4 * (*depth / 8);
  png_read_image (png, rows);
  png_read_end (png, NULL);
  png_destroy_read_struct (&png, &info, NULL);
  fclose (f);
  g_free (rows);
  return pixels;
}

/* A run with no operation over every file of PngSuite: each file libpng
 * decodes comes out with the same samples at the same depth (16-bit
 * colour, gray + alpha and tRNS included), checked through libpng, not
 * through the tool's own reader; each file libpng rejects is a failure
 * the tool reports. */
static void
test_no_op_pngsuite_lossless (void)
{
  GPtrArray *names = list_dir (suite_dir ());
  char *out = tmp_path ("suite-out"), *o, *e;
  guint good = 0, bad = 0, processed, skipped, failed, not_started;
  int status;

  status = run_tool (&o, &e, "--jobs", "2", suite_dir (), out, NULL);
  for (guint i = 0; i < names->len; i++) {
    const char *name = g_ptr_array_index (names, i);
    char *a, *b;
    guint8 *pa, *pb;
    int wa, ha, da, wb, hb, db;

    if (!is_png_name (name))
      continue;
    a = g_build_filename (suite_dir (), name, NULL);
    b = g_build_filename (out, name, NULL);
    pa = decode_native (a, &wa, &ha, &da);
    if (!pa) {
      bad++;
      g_assert_false (g_file_test (b, G_FILE_TEST_EXISTS));
      g_assert_cmpuint (count_lines_with (e, name), ==, 1);
    } else {
      good++;
      pb = decode_native (b, &wb, &hb, &db);
      g_assert_nonnull (pb);
      g_test_message ("%s: %dx%d, %d bits", name, wa, ha, da);
      g_assert_cmpint (wb, ==, wa);
      g_assert_cmpint (hb, ==, ha);
      g_assert_cmpint (db, ==, da);
      g_assert_cmpmem (pa, (gsize) wa * ha * 4 * (da / 8), pb,
          (gsize) wb * hb * 4 * (db / 8));
      g_free (pb);
    }
    g_free (pa);
    g_free (a);
    g_free (b);
  }
  g_assert_cmpuint (good, >=, 40);
  g_assert_cmpint (status, ==, bad ? 1 : 0);
  parse_summary (o, &processed, &skipped, &failed, &not_started);
  g_assert_cmpuint (processed, ==, good);
  g_assert_cmpuint (failed, ==, bad);
  g_assert_cmpuint (skipped + not_started, ==, 0);
  g_free (o);
  g_free (e);
  g_free (out);
  g_ptr_array_unref (names);
}

static void
check_size (const char *path, int w, int h)
{
  CfPngImage img = { 0 };
  read_png (path, &img);
  g_assert_cmpint (img.image.width, ==, w);
  g_assert_cmpint (img.image.height, ==, h);
  cf_png_image_clear (&img);
}

/* Each size form, and the pixels of cf_resize_cpu (). */
static void
test_resize (void)
{
  char *in = make_dir ("resize-in");
  char *out1 = tmp_path ("resize-1"), *out2 = tmp_path ("resize-2");
  char *out3 = tmp_path ("resize-3"), *out4 = tmp_path ("resize-4");
  char *src = g_build_filename (in, "basn2c08.png", NULL);
  char *dst = g_build_filename (out1, "basn2c08.png", NULL);
  CfPngImage a = { 0 }, b = { 0 }, want = { 0 };
  CfResizePlan plan;

  copy_suite_file ("basn2c08.png", in, NULL);   /* 32x32 RGB */
  g_assert_cmpint (run_tool (NULL, NULL, "--resize", "20x11", "--method",
          "lanczos", in, out1, NULL), ==, 0);
  read_png (src, &a);
  read_png (dst, &b);
  g_assert_cmpint (cf_png_image_alloc (&want, a.image.format, 20, 11), ==, 0);
  g_assert_cmpint (cf_resize_plan_init (&plan, a.image.format,
          CF_RESIZE_LANCZOS, 1, 32, 32, 20, 11, 0, 0), ==, 0);
  g_assert_cmpint (cf_resize_cpu (&plan, &a.image, &want.image), ==, 0);
  assert_same_pixels (&want.image, &b.image);
  cf_resize_plan_clear (&plan);
  cf_png_image_clear (&a);
  cf_png_image_clear (&b);
  cf_png_image_clear (&want);
  g_free (dst);

  g_assert_cmpint (run_tool (NULL, NULL, "--resize", "16", in, out2, NULL),
      ==, 0);
  dst = g_build_filename (out2, "basn2c08.png", NULL);
  check_size (dst, 16, 16);
  g_free (dst);
  g_assert_cmpint (run_tool (NULL, NULL, "--resize", "x8", "--resize", "48x8",
          in, out3, NULL), ==, 0);
  dst = g_build_filename (out3, "basn2c08.png", NULL);
  check_size (dst, 48, 8);
  g_free (dst);
  g_assert_cmpint (run_tool (NULL, NULL, "--resize", "25%", "--stencil",
          "gaussian:sigma=1.5,border=clamp", in, out4, NULL), ==, 0);
  dst = g_build_filename (out4, "basn2c08.png", NULL);
  check_size (dst, 8, 8);
  g_free (dst);
  g_assert_cmpint (run_tool (NULL, NULL, "--resize", "0x5", in, out4, NULL),
      ==, 2);
  g_assert_cmpint (run_tool (NULL, NULL, "--stencil", "taps=1,2", in, out4,
          NULL), ==, 2);
  g_free (src);
  g_free (in);
  g_free (out1);
  g_free (out2);
  g_free (out3);
  g_free (out4);
}

/* --stencil takes and refuses what cudastencil does, for the same reasons
 * (one set of rules: elements/gstcfstencilsettings.h): every row of
 * cf-stencil-rules.h, @cause what the usage error must name. The input is
 * 16-bit, the samples the tool checks settings against before reading
 * files. */

static void
test_stencil_rules (void)
{
  char *in = make_dir ("rules-in"), *out = tmp_path ("rules-out");
  char *e, *p;

  copy_suite_file ("basn0g16.png", in, NULL);
  for (guint k = 0; k < G_N_ELEMENTS (cf_stencil_rules); k++) {
    const char *cause = cf_stencil_rules[k].cause;
    int status = run_tool (NULL, &e, "--quiet", "--overwrite", "--stencil",
        cf_stencil_rules[k].spec, in, out, NULL);

    if (!cause) {
      g_assert_cmpint (status, ==, 0);
    } else {
      g_assert_cmpint (status, ==, 2);
      if (!strstr (e, cause))
        g_error ("--stencil %s: \"%s\" lacks \"%s\"",
            cf_stencil_rules[k].spec, e, cause);
    }
    g_free (e);
  }

  /* the spellings --help documented before the element's names */
  g_assert_cmpint (run_tool (NULL, NULL, "--quiet", "--overwrite",
          "--stencil", "taps=1,2,1:normalize=0,border=constant,value=9,"
          "alpha=1", in, out, NULL), ==, 0);
  /* a border value beyond 8-bit samples fails the 8-bit files only, each
   * naming why */
  copy_suite_file ("basn0g08.png", in, NULL);
  remove_tree (out);
  g_assert_cmpint (run_tool (NULL, &e, "--stencil",
          "box:border=constant,border-value=300", in, out, NULL), ==, 1);
  g_assert_cmpuint (count_lines_with (e, "basn0g08.png"), ==, 1);
  g_assert_cmpuint (count_lines_with (e, "border-value 300"), ==, 1);
  g_free (e);
  p = g_build_filename (out, "basn0g16.png", NULL);
  g_assert_true (g_file_test (p, G_FILE_TEST_EXISTS));
  g_free (p);
  remove_tree (out);
  remove_tree (in);
  g_free (out);
  g_free (in);
}

/* A constant picture has known statistics. */
static void
test_stats_csv (void)
{
  char *in = make_dir ("stats-in"), *out = tmp_path ("stats-out");
  char *csv = tmp_path ("stats.csv"), *p = g_build_filename (in, "c.png", NULL);
  char *text, **lines, **f;
  CfPngImage img = { 0 };
  GString *want = g_string_new ("c.png,1,7,5,GRAY8,gray,77,77,77,0,");

  g_assert_cmpint (cf_png_image_alloc (&img, CF_FORMAT_GRAY8, 7, 5), ==, 0);
  for (int y = 0; y < 5; y++)
    memset ((guint8 *) img.image.data[0] + y * img.image.pitch[0], 77, 7);
  write_png (p, &img, 6);
  cf_png_image_clear (&img);
  copy_suite_file ("basn2c08.png", in, NULL);

  g_assert_cmpint (run_tool (NULL, NULL, "--stats", "--stats-out", csv, in,
          out, NULL), ==, 0);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "file,stats,width,height,format,channel,"
      "min,max,mean,variance,histogram");
  /* sorted: basn2c08.png (R, G, B), then c.png */
  g_assert_true (g_str_has_prefix (lines[1], "basn2c08.png,1,32,32,RGB,R,"));
  g_assert_true (g_str_has_prefix (lines[3], "basn2c08.png,1,32,32,RGB,B,"));
  for (int i = 0; i < 256; i++)
    g_string_append_printf (want, "%s%d", i ? " " : "", i == 77 ? 35 : 0);
  g_assert_cmpstr (lines[4], ==, want->str);
  g_assert_cmpstr (lines[5], ==, "");
  g_assert_null (lines[6]);
  f = g_strsplit (lines[1], ",", -1);
  g_assert_cmpuint (g_strv_length (f), ==, 11);
  g_strfreev (f);
  g_strfreev (lines);
  g_free (text);

  /* JSON Lines: one object per file */
  g_free (csv);
  csv = tmp_path ("stats.jsonl");
  g_assert_cmpint (run_tool (NULL, NULL, "--overwrite", "--stats",
          "--stats-out", csv, in, out, NULL), ==, 0);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_true (g_str_has_prefix (lines[1], "{\"file\":\"c.png\",\"stats\":1,"
          "\"width\":7,\"height\":5,\"format\":\"GRAY8\",\"channels\":"
          "[{\"channel\":\"gray\",\"min\":77,\"max\":77,\"mean\":77,"
          "\"variance\":0,\"histogram\":[0,"));
  g_strfreev (lines);
  g_free (text);

  g_string_free (want, TRUE);
  g_free (p);
  g_free (csv);
  g_free (in);
  g_free (out);
}

/* A resumed run (outputs there, no --overwrite) still measures the files
 * it skips: the statistics file it writes is the whole one, byte for byte
 * the first run's, not the statistics of the files it wrote. */
static void
test_stats_resume (void)
{
  char *in = make_dir ("resume-in"), *out = tmp_path ("resume-out");
  static const char *const kinds[] = { "csv", "jsonl" };

  for (int i = 0; good_files[i]; i++)
    copy_suite_file (good_files[i], in, NULL);
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++) {
    char *first = g_strdup_printf ("%s/resume-first.%s", tmp_dir, kinds[k]);
    char *stats = g_strdup_printf ("%s/resume.%s", tmp_dir, kinds[k]);
    char *o, *p;
    char want[64];

    /* statistics before and after the other operations */
    g_assert_cmpint (run_tool (NULL, NULL, "--stats", "--resize", "50%",
            "--stats", "--stencil", "box", "--stats-out", first, in, out,
            NULL), ==, 0);
    g_assert_cmpint (run_tool (&o, NULL, "--stats", "--resize", "50%",
            "--stats", "--stencil", "box", "--stats-out", stats, in, out,
            NULL), ==, 0);
    g_snprintf (want, sizeof (want), "processed 0, skipped %u, failed 0",
        g_strv_length ((char **) good_files));
    g_assert_nonnull (strstr (o, want));
    g_free (o);
    assert_same_text_files (first, stats);

    /* one output missing: written, the others measured */
    p = g_build_filename (out, good_files[2], NULL);
    g_assert_cmpint (g_unlink (p), ==, 0);
    g_assert_cmpint (run_tool (&o, NULL, "--stats", "--resize", "50%",
            "--stats", "--stencil", "box", "--stats-out", stats, in, out,
            NULL), ==, 0);
    g_snprintf (want, sizeof (want), "processed 1, skipped %u, failed 0",
        g_strv_length ((char **) good_files) - 1);
    g_assert_nonnull (strstr (o, want));
    g_assert_true (g_file_test (p, G_FILE_TEST_EXISTS));
    assert_same_text_files (first, stats);
    g_free (o);
    g_free (p);
    remove_tree (out);
    g_unlink (first);
    g_unlink (stats);
    g_free (first);
    g_free (stats);
  }
  remove_tree (in);
  g_free (out);
  g_free (in);
}

/* Temporary files a killed run left (NAME.tmp-XXXXXX, png-io's pattern) go
 * when the tool writes NAME; anything else is left alone: other names, a
 * NAME of another shard, a NAME whose output exists and is skipped. */
static void
test_stale_temps (void)
{
  static const char *const kept[] = {
    "basn0g08.png.tmp-abc12",   /* five characters: not png-io's */
    "basn0g08.png.tmp-abc1234",
    "basn0g08.png.tmp-abc12_",
    "basn0g08.png.tmp-abc123.x",
    "notes.png.tmp-Ab12Cd",     /* no such input */
    "basn3p04.png.tmp-Ab12Cd",  /* its output exists: skipped */
    "basn2c08.png.tmp-Ab12Cd",  /* the other shard's */
  };
  static const char *const removed[] = {
    "basn0g08.png.tmp-Ab12Cd", "basn0g08.png.tmp-zzzzzz",
    "sub/basn0g16.png.tmp-000000",
  };
  char *in = make_dir ("stale-in"), *sub = make_dir ("stale-in/sub");
  char *out = make_dir ("stale-out"), *osub = make_dir ("stale-out/sub");
  char *o, *p;

  /* sorted: basn0g08, basn2c08, basn3p04, basn6a08, then sub/basn0g16
   * with -r; shard 1/2 is basn0g08 and basn3p04 */
  copy_suite_file ("basn0g08.png", in, NULL);
  copy_suite_file ("basn2c08.png", in, NULL);
  copy_suite_file ("basn3p04.png", in, NULL);
  copy_suite_file ("basn6a08.png", in, NULL);
  copy_suite_file ("basn0g16.png", sub, NULL);
  copy_suite_file ("basn3p04.png", out, NULL);
  for (guint k = 0; k < G_N_ELEMENTS (kept); k++) {
    p = g_build_filename (out, kept[k], NULL);
    g_assert_true (g_file_set_contents (p, "stale", -1, NULL));
    g_free (p);
  }
  for (guint k = 0; k < G_N_ELEMENTS (removed); k++) {
    p = g_build_filename (out, removed[k], NULL);
    g_assert_true (g_file_set_contents (p, "stale", -1, NULL));
    g_free (p);
  }
  /* shard 1/2 of the top folder (-r left out), then sub/ alone */
  g_assert_cmpint (run_tool (&o, NULL, "--shard", "1/2", in, out, NULL), ==,
      0);
  g_assert_nonnull (strstr (o, "processed 1, skipped 1, failed 0"));
  g_free (o);
  p = g_build_filename (out, "sub", "basn0g16.png.tmp-000000", NULL);
  g_assert_true (g_file_test (p, G_FILE_TEST_EXISTS));  /* not listed */
  g_free (p);
  g_assert_cmpint (run_tool (&o, NULL, "-r", "--shard", "5/5", in, out,
          NULL), ==, 0);
  g_assert_nonnull (strstr (o, "processed 1, skipped 0, failed 0"));
  g_free (o);

  for (guint k = 0; k < G_N_ELEMENTS (kept); k++) {
    p = g_build_filename (out, kept[k], NULL);
    g_assert_true (g_file_test (p, G_FILE_TEST_EXISTS));
    g_free (p);
  }
  for (guint k = 0; k < G_N_ELEMENTS (removed); k++) {
    p = g_build_filename (out, removed[k], NULL);
    if (g_file_test (p, G_FILE_TEST_EXISTS))
      g_error ("%s: a stale temporary file was left", p);
    g_free (p);
  }
  p = g_build_filename (out, "basn0g08.png", NULL);
  check_size (p, 32, 32);
  g_free (p);
  remove_tree (out);
  remove_tree (in);
  g_free (osub);
  g_free (out);
  g_free (sub);
  g_free (in);
}

static void
collect_names (const char *dir, GHashTable * seen, guint * n)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d))) {
    g_assert_false (g_hash_table_contains (seen, name));
    g_hash_table_add (seen, g_strdup (name));
    (*n)++;
  }
  g_dir_close (d);
}

/* The shards of a folder split it: every file once. Also -r and names in
 * upper case. */
static void
test_shards (void)
{
  char *in = make_dir ("shard-in"), *sub = make_dir ("shard-in/sub");
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  guint n = 0;

  for (int i = 0; good_files[i]; i++)
    copy_suite_file (good_files[i], in, NULL);
  copy_suite_file ("basn0g01.png", sub, "UPPER.PNG");
  for (int k = 1; k <= 3; k++) {
    char shard[16], *out;
    g_snprintf (shard, sizeof (shard), "%d/3", k);
    out = g_strdup_printf ("%s/shard-out-%d", tmp_dir, k);
    g_assert_cmpint (run_tool (NULL, NULL, "--shard", shard, in, out, NULL),
        ==, 0);
    collect_names (out, seen, &n);
    g_free (out);
  }
  g_assert_cmpuint (n, ==, 7);
  for (int i = 0; good_files[i]; i++)
    g_assert_true (g_hash_table_contains (seen, good_files[i]));
  g_assert_cmpint (run_tool (NULL, NULL, "--shard", "4/3", in, "x", NULL), ==,
      2);
  {
    char *out = tmp_path ("shard-r"), *p;
    g_assert_cmpint (run_tool (NULL, NULL, "-r", in, out, NULL), ==, 0);
    p = g_build_filename (out, "sub", "UPPER.PNG", NULL);
    g_assert_true (g_file_test (p, G_FILE_TEST_EXISTS));
    g_free (p);
    g_free (out);
  }
  g_hash_table_unref (seen);
  g_free (sub);
  g_free (in);
}

/* Outputs in the input folder are refused; existing outputs kept. */
static void
test_refusals_and_existing (void)
{
  char *in = make_dir ("keep-in"), *out = make_dir ("keep-out");
  char *inside = g_build_filename (in, "out", NULL);
  char *p = g_build_filename (out, "basn0g08.png", NULL), *text, *o;

  copy_suite_file ("basn0g08.png", in, NULL);
  g_assert_cmpint (run_tool (NULL, NULL, in, inside, NULL), ==, 2);
  g_assert_cmpint (run_tool (NULL, NULL, in, in, NULL), ==, 2);
  g_assert_false (g_file_test (inside, G_FILE_TEST_EXISTS));
  g_assert_cmpint (run_tool (NULL, NULL, "--compression", "10", in, out,
          NULL), ==, 2);
  g_assert_cmpint (run_tool (NULL, NULL, in, NULL), ==, 2);

  g_assert_true (g_file_set_contents (p, "keep me", -1, NULL));
  g_assert_cmpint (run_tool (&o, NULL, in, out, NULL), ==, 0);
  g_assert_nonnull (strstr (o, "processed 0, skipped 1, failed 0"));
  g_free (o);
  g_assert_true (g_file_get_contents (p, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "keep me");
  g_free (text);
  g_assert_cmpint (run_tool (NULL, NULL, "--overwrite", "--quiet", in, out,
          NULL), ==, 0);
  check_size (p, 32, 32);
  g_free (p);
  g_free (inside);
  g_free (in);
  g_free (out);
}

/* ------------------------------------------------------------- backends */

static void
assert_same_outputs (const char *in, const char *out_a, const char *out_b)
{
  GPtrArray *names = list_dir (in);

  for (guint i = 0; i < names->len; i++) {
    const char *name = g_ptr_array_index (names, i);
    char *a = g_build_filename (out_a, name, NULL);
    char *b = g_build_filename (out_b, name, NULL);
    assert_same_files (a, b);
    g_free (a);
    g_free (b);
  }
  g_ptr_array_unref (names);
}

/* --backend: auto gives the CPU's pixels; cuda works where a device does,
 * and is a usage error naming the reason where none does. */
static void
test_backend_option (void)
{
  char *in = make_dir ("backend-in"), *cpu = tmp_path ("backend-cpu");
  char *out = tmp_path ("backend-out"), *e;

  copy_suite_file ("basn2c08.png", in, NULL);
  copy_suite_file ("basn0g16.png", in, NULL);
  copy_suite_file ("ibasn6a08.png", in, NULL);
  g_assert_cmpint (run_tool (NULL, NULL, "--backend", "cpu", "--resize",
          "150%", in, cpu, NULL), ==, 0);
  g_assert_cmpint (run_tool (NULL, NULL, "--backend", "auto", "--resize",
          "150%", in, out, NULL), ==, 0);
  assert_same_outputs (in, cpu, out);
  remove_tree (out);
  g_assert_cmpint (run_tool (NULL, NULL, "--backend", "opencl", in, out,
          NULL), ==, 2);

  if (cuda_device_works ()) {
    g_test_message ("a CUDA device works: --backend cuda must too");
    g_assert_cmpint (run_tool (NULL, NULL, "--backend", "cuda", "--resize",
            "150%", in, out, NULL), ==, 0);
    assert_same_outputs (in, cpu, out);
    remove_tree (out);
    g_assert_cmpint (run_tool (NULL, NULL, "--backend", "cuda", "--devices",
            "all", "--resize", "150%", in, out, NULL), ==, 0);
    assert_same_outputs (in, cpu, out);
    remove_tree (out);
    g_assert_cmpint (run_tool (NULL, NULL, "--backend", "cuda", "--devices",
            "0", "--resize", "150%", in, out, NULL), ==, 0);
    assert_same_outputs (in, cpu, out);
    remove_tree (out);
    {
      /* -v names the device of each file: every device of the machine
       * (two files a device, one job each); a device that does not exist
       * is a usage error naming it */
      const int n = cf_test_device_count ();
      char *o = NULL, *bad = g_strdup_printf ("%d", n);
      char *jobs = g_strdup_printf ("%d", n);
      guint seen = 0;

      g_assert_cmpint (n, >, 0);
      for (int i = 0; i < 2 * n; i++) {
        char *name = g_strdup_printf ("copy%d.png", i);
        copy_suite_file ("basn2c08.png", in, name);
        g_free (name);
      }
      g_assert_cmpint (run_tool (NULL, NULL, "--backend", "cpu", "--resize",
              "150%", "--overwrite", in, cpu, NULL), ==, 0);
      g_assert_cmpint (run_tool (&o, NULL, "-v", "--backend", "cuda",
              "--devices", "all", "--jobs", jobs, "--resize", "150%", in,
              out, NULL), ==, 0);
      g_test_message ("%s", o);
      assert_same_outputs (in, cpu, out);
      g_assert_cmpuint (count_lines_with (o, ": written (CUDA device "), ==,
          2 * n + 3);
      for (int d = 0; d < n; d++) {
        char *tag = g_strdup_printf ("(CUDA device %d)", d);
        seen += count_lines_with (o, tag) > 0;
        g_free (tag);
      }
      g_test_message ("%u of %d devices ran files", seen, n);
      g_assert_cmpuint (seen, >=, 1);
      g_free (o);
      remove_tree (out);
      g_assert_cmpint (run_tool (NULL, &e, "--backend", "cuda", "--devices",
              bad, in, out, NULL), ==, 2);
      g_assert_cmpuint (count_lines_with (e, "there is no CUDA device"), ==,
          1);
      g_assert_nonnull (strstr (e, bad));
      g_free (e);
      g_free (bad);
      g_free (jobs);
    }
  } else {
    g_test_message ("no CUDA device: --backend cuda must be refused");
    g_assert_cmpint (run_tool (NULL, &e, "--backend", "cuda", in, out, NULL),
        ==, 2);
    g_assert_cmpuint (count_lines_with (e, "no CUDA device"), ==, 1);
    g_free (e);
    if (g_file_test (out, G_FILE_TEST_IS_DIR)) {
      GPtrArray *names = list_dir (out);
      g_assert_cmpuint (names->len, ==, 0);
      g_ptr_array_unref (names);
    }
  }
  remove_tree (out);
  remove_tree (cpu);
  remove_tree (in);
  g_free (out);
  g_free (cpu);
  g_free (in);
}

/* Runs of the equality test: each --method, resizes up and down, stencil
 * presets and taps, border modes, --stats at several points. */
static const char *const equality_runs[][16] = {
  {"--stats", "--method", "nearest", "--resize", "45x19", "--stats",
      "--stencil", "gaussian:sigma=1.5", "--stats", NULL},
  {"--method", "bilinear", "--resize", "200%", "--stencil",
      "sharpen:amount=0.7,border=clamp", "--stats", NULL},
  {"--method", "bicubic", "--resize", "13x50", "--stencil",
      "box:radius=3,border=wrap", "--stats", "--resize", "x40", NULL},
  {"--method", "lanczos", "--resize", "50%", "--stencil",
        "taps=1,-2,6,-2,1:border=constant,value=200,alpha=1", "--stats",
      NULL},
  {"--method", "area", "--resize", "20", "--stencil",
        "taps=1,2,1:direction=vertical,border=mirror", "--resize", "70x33",
      "--stats", NULL},
  {"--stencil", "laplacian:border=clamp", "--stats", "--stencil",
        "derivative:direction=horizontal,border=constant,value=9", "--stencil",
      "taps=-1,0,1:normalize=0,direction=vertical", "--stats", NULL},
};

/* Every PngSuite image and random pictures of odd sizes through each run,
 * with --backend cpu and with the backend under test: the same pixels and
 * the same statistics, byte for byte. */
static void
test_backend_equality (void)
{
  static const struct
  {
    const char *name;
    CfFormat format;
    int width, height;
  } made[] = {
    {"rand-1x1-rgb.png", CF_FORMAT_RGB, 1, 1},
    {"rand-1x7-gray.png", CF_FORMAT_GRAY8, 1, 7},
    {"rand-7x1-gray16.png", CF_FORMAT_GRAY16_LE, 7, 1},
    {"rand-33x17-rgba.png", CF_FORMAT_RGBA, 33, 17},
    {"rand-17x33-rgb.png", CF_FORMAT_RGB, 17, 33},
    {"rand-257x131-rgba.png", CF_FORMAT_RGBA, 257, 131},
    {"rand-203x97-gray16.png", CF_FORMAT_GRAY16_LE, 203, 97},
  };
  static const CfFormat formats[] = { CF_FORMAT_GRAY8, CF_FORMAT_GRAY16_LE,
    CF_FORMAT_RGB, CF_FORMAT_RGBA
  };
  char *in = make_dir ("equal-in");
  GPtrArray *names = list_dir (suite_dir ());
  guint n_files = 0;
  char summary[64];

  for (guint i = 0; i < names->len; i++) {
    const char *name = g_ptr_array_index (names, i);
    if (g_str_has_suffix (name, ".png")) {
      copy_suite_file (name, in, NULL);
      n_files++;
    }
  }
  g_ptr_array_unref (names);
  g_assert_cmpuint (n_files, >=, 60);
  for (guint i = 0; i < G_N_ELEMENTS (made); i++, n_files++)
    write_random_png (in, made[i].name, made[i].format, made[i].width,
        made[i].height);
  /* and one of a random size and format */
  write_random_png (in, "rand-any.png", formats[g_rand_int_range (rng, 0, 4)],
      g_rand_int_range (rng, 1, 100), g_rand_int_range (rng, 1, 100));
  n_files++;
  g_snprintf (summary, sizeof (summary), "processed %u, skipped 0, failed 0",
      n_files);

  for (guint r = 0; r < G_N_ELEMENTS (equality_runs); r++) {
    const char *const *ops = equality_runs[r];
    gboolean stats = FALSE;
    char *stats_name[2] = { NULL, NULL }, *outs[2], *o;

    for (int k = 0; ops[k]; k++)
      stats |= !strcmp (ops[k], "--stats");
    for (int b = 0; b < 2; b++) {
      GPtrArray *args = g_ptr_array_new ();
      char jobs[16];

      outs[b] = g_strdup_printf ("%s/equal-%u-%s", tmp_dir, r,
          b ? "test" : "cpu");
      for (int k = 0; ops[k]; k++)
        g_ptr_array_add (args, (gpointer) ops[k]);
      if (stats) {
        /* CSV, and JSON Lines for the odd runs */
        stats_name[b] = g_strdup_printf ("%s.%s", outs[b],
            r % 2 ? "jsonl" : "csv");
        g_ptr_array_add (args, (gpointer) "--stats-out");
        g_ptr_array_add (args, stats_name[b]);
      }
      /* the reference on one thread, the backend under test on several */
      g_snprintf (jobs, sizeof (jobs), "%d", b ? 3 + (int) r % 2 : 1);
      g_ptr_array_add (args, (gpointer) "--jobs");
      g_ptr_array_add (args, jobs);
      g_ptr_array_add (args, (gpointer) "--backend");
      g_ptr_array_add (args, (gpointer) (b ? cf_test_backend_name () : "cpu"));
      if (b && cf_test_want_cuda ()) {
        g_ptr_array_add (args, (gpointer) "--devices");
        g_ptr_array_add (args, (gpointer) (r % 2 ? "0" : "all"));
      }
      g_ptr_array_add (args, in);
      g_ptr_array_add (args, outs[b]);
      g_assert_cmpint (run_tool_args (args, &o, NULL), ==, 0);
      g_assert_nonnull (strstr (o, summary));
      g_free (o);
      g_ptr_array_unref (args);
    }
    assert_same_outputs (in, outs[0], outs[1]);
    if (stats)
      assert_same_text_files (stats_name[0], stats_name[1]);
    for (int b = 0; b < 2; b++) {
      remove_tree (outs[b]);
      if (stats_name[b])
        g_unlink (stats_name[b]);
      g_free (stats_name[b]);
      g_free (outs[b]);
    }
  }
  remove_tree (in);
  g_free (in);
}

/* ---------------------------------------------- limits and broken inputs */

/* write_gray_png () as @dir/@name. */
static void
make_gray_png (const char *dir, const char *name, guint32 width,
    guint32 height, gsize raw_len)
{
  char *path = g_build_filename (dir, name, NULL);
  write_gray_png (path, width, height, raw_len);
  g_free (path);
}

static void
write_bytes (const char *dir, const char *name, const void *data, gsize len)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  g_free (path);
}

/* The line of @err that names @dir/@name (exactly one); NULL-safe free. */
static char *
error_line_of (const char *err, const char *dir, const char *name)
{
  char *path = g_build_filename (dir, name, NULL);
  char *what = g_strdup_printf ("%s: ", path);
  char **lines = g_strsplit (err, "\n", -1);
  char *found = NULL;
  guint n = 0;

  for (int i = 0; lines[i]; i++)
    if (strstr (lines[i], what)) {
      n++;
      g_free (found);
      found = g_strdup (lines[i]);
    }
  if (n != 1)
    g_error ("%u lines of stderr name %s, not 1:\n%s", n, path, err);
  g_strfreev (lines);
  g_free (what);
  g_free (path);
  return found;
}

/* One folder of good files and broken ones, with --max-pixels: exit status
 * 1, exactly one stderr line per bad file naming it, every good file
 * written losslessly, the counts in the summary, nothing else written. */
static void
test_limits_and_corrupt (void)
{
  static const char *const suite_good[] = {
    "basn0g08.png", "basn2c08.png", "basn6a08.png", "ibasn0g16.png",
    "basn3p02.png", NULL
  };
  char *in = make_dir ("limits-in"), *out = tmp_path ("limits-out");
  GPtrArray *good = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *bad = g_ptr_array_new_with_free_func (g_free);
  char *src = g_build_filename (suite_dir (), "basn2c08.png", NULL);
  char *o, *e, *line, want[64];
  gchar *data;
  gsize len;
  gint64 start = g_get_monotonic_time ();
  guint processed, skipped, failed, not_started;

  /* good: 32x32 (1024 pixels), random odd sizes, and an IDAT that inflates
   * to 16 MB where 1640 bytes make the 40x40 picture: libpng stops
   * inflating when the rows are full (excess data is only a warning, as
   * in browsers), so it is read at once, not refused */
  for (int i = 0; suite_good[i]; i++) {
    copy_suite_file (suite_good[i], in, NULL);
    g_ptr_array_add (good, g_strdup (suite_good[i]));
  }
  write_random_png (in, "odd-1x1.png", CF_FORMAT_RGB, 1, 1);
  g_ptr_array_add (good, g_strdup ("odd-1x1.png"));
  write_random_png (in, "odd-33x17.png", CF_FORMAT_RGBA, 33, 17);
  g_ptr_array_add (good, g_strdup ("odd-33x17.png"));
  make_gray_png (in, "endless.png", 40, 40, 16 << 20);
  g_ptr_array_add (good, g_strdup ("endless.png"));

  /* bad: truncations of basn2c08 (in the signature's end, right after
   * IHDR, in IDAT, before IEND, in IEND's CRC) */
  g_assert_true (g_file_get_contents (src, &data, &len, NULL));
  {
    gsize cuts[] = { 8, 33, len / 2, len - 12, len - 1 };
    const char *names[] = { "trunc-8.png", "trunc-33.png", "trunc-half.png",
      "trunc-end-12.png", "trunc-end-1.png"
    };
    for (guint i = 0; i < G_N_ELEMENTS (cuts); i++) {
      write_bytes (in, names[i], data, cuts[i]);
      g_ptr_array_add (bad, g_strdup (names[i]));
    }
  }
  /* a flipped bit in IHDR's CRC, and in IDAT's (IHDR, gAMA, IDAT, IEND) */
  data[32] ^= 1;
  write_bytes (in, "crc-ihdr.png", data, len);
  g_ptr_array_add (bad, g_strdup ("crc-ihdr.png"));
  data[32] ^= 1;
  data[len - 13] ^= 0x80;
  write_bytes (in, "crc-idat.png", data, len);
  g_ptr_array_add (bad, g_strdup ("crc-idat.png"));
  g_free (data);

  /* an IHDR of 100000x100000, over the largest side, its CRC right */
  make_gray_png (in, "huge-ihdr.png", 100000, 100000, 1000);
  g_ptr_array_add (bad, g_strdup ("huge-ihdr.png"));
  /* a valid picture over --max-pixels 2000 */
  write_random_png (in, "over-limit.png", CF_FORMAT_RGB, 48, 48);
  g_ptr_array_add (bad, g_strdup ("over-limit.png"));
  /* a bomb: 30 kB that would inflate to 900 Mpixel (over the default
   * limit too), refused before anything is inflated or allocated */
  make_gray_png (in, "bomb.png", 30000, 30000, 30 << 20);
  g_ptr_array_add (bad, g_strdup ("bomb.png"));
  /* a stream that ends before the picture does */
  make_gray_png (in, "short.png", 40, 40, 41 * 20);
  g_ptr_array_add (bad, g_strdup ("short.png"));
  /* not PNG at all */
  write_bytes (in, "text.png", "hello, world\n", 13);
  g_ptr_array_add (bad, g_strdup ("text.png"));
  write_bytes (in, "empty.png", "", 0);
  g_ptr_array_add (bad, g_strdup ("empty.png"));
  /* a link to nothing: cannot be opened, even by root */
  {
    char *p = g_build_filename (in, "dangling.png", NULL);
    g_assert_cmpint (symlink ("no-such-file.png", p), ==, 0);
    g_ptr_array_add (bad, g_strdup ("dangling.png"));
    g_free (p);
  }
  if (geteuid () != 0) {
    char *p = g_build_filename (in, "locked.png", NULL);
    copy_suite_file ("basn0g08.png", in, "locked.png");
    g_assert_cmpint (g_chmod (p, 0), ==, 0);
    g_ptr_array_add (bad, g_strdup ("locked.png"));
    g_free (p);
  } else {
    g_test_message ("running as root, which reads a chmod 000 file: the "
        "unreadable-file case is skipped");
  }

  g_assert_cmpint (run_tool (&o, &e, "--max-pixels", "2000", "--jobs", "2",
          in, out, NULL), ==, 1);
  g_test_message ("the tool took %.2f s with the inputs made",
      (g_get_monotonic_time () - start) / 1e6);

  g_assert_cmpuint (count_nonempty_lines (e), ==, bad->len);
  for (guint i = 0; i < bad->len; i++) {
    const char *name = g_ptr_array_index (bad, i);
    char *p = g_build_filename (out, name, NULL);
    g_free (error_line_of (e, in, name));
    g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
    g_free (p);
  }
  line = error_line_of (e, in, "over-limit.png");
  g_assert_nonnull (strstr (line, "48x48"));
  g_assert_nonnull (strstr (line, "limit of 2000 pixels"));
  g_free (line);
  line = error_line_of (e, in, "bomb.png");
  g_assert_nonnull (strstr (line, "over the limit"));
  g_free (line);

  parse_summary (o, &processed, &skipped, &failed, &not_started);
  g_assert_cmpuint (processed, ==, good->len);
  g_assert_cmpuint (skipped, ==, 0);
  g_assert_cmpuint (failed, ==, bad->len);
  g_assert_cmpuint (not_started, ==, 0);
  g_assert_null (strstr (o, "not started"));
  g_snprintf (want, sizeof (want), "processed %u, skipped 0, failed %u,",
      good->len, bad->len);
  g_assert_nonnull (strstr (o, want));

  for (guint i = 0; i < good->len; i++) {
    const char *name = g_ptr_array_index (good, i);
    char *a = g_build_filename (in, name, NULL);
    char *b = g_build_filename (out, name, NULL);
    assert_same_files (a, b);
    g_free (a);
    g_free (b);
  }
  {
    GPtrArray *names = list_dir (out);
    g_assert_cmpuint (names->len, ==, good->len);
    g_ptr_array_unref (names);
  }

  g_free (o);
  g_free (e);
  g_free (src);
  g_ptr_array_unref (good);
  g_ptr_array_unref (bad);
  remove_tree (out);
  remove_tree (in);
  g_free (out);
  g_free (in);
}

/* --------------------------------------------------------- interruption */

#define N_SLOW_FILES 24
#define SLOW_SIDE 1500

/* The folder of the interruption tests, made once: N_SLOW_FILES random
 * RGB pictures, written fast (zlib level 0); the tool re-encodes them at
 * level 9 on one thread, which takes seconds. */
static const char *
slow_input (void)
{
  static char *dir;
  CfPngImage img;

  if (dir)
    return dir;
  dir = make_dir ("slow-in");
  random_image (&img, CF_FORMAT_RGB, SLOW_SIDE, SLOW_SIDE);
  for (int i = 0; i < N_SLOW_FILES; i++) {
    char name[32], *path;
    guint8 *p = img.image.data[0];
    /* a new random band in each file, and its number in the corner */
    for (int k = 0; k < 64 * 1024; k++)
      p[g_rand_int_range (rng, 0, img.image.pitch[0] * SLOW_SIDE)] =
          g_rand_int (rng);
    p[0] = i;
    g_snprintf (name, sizeof (name), "slow-%02d.png", i);
    path = g_build_filename (dir, name, NULL);
    write_png (path, &img, 0);
    g_free (path);
  }
  cf_png_image_clear (&img);
  return dir;
}

typedef struct
{
  GPid pid;
  int out_fd, err_fd;
  GString *out, *err;
  gboolean exited;
  int status;
} Child;

/* The tool starts with the default actions of SIGINT and SIGTERM, and
 * neither blocked, whatever this process inherited. */
static void
child_setup (gpointer data)
{
  sigset_t set;

  signal (SIGINT, SIG_DFL);
  signal (SIGTERM, SIG_DFL);
  sigemptyset (&set);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGTERM);
  sigprocmask (SIG_UNBLOCK, &set, NULL);
}

static void
child_start (Child * c, const char *const *args)
{
  GPtrArray *a = g_ptr_array_new ();
  GError *error = NULL;
  char **argv, *cmd;

  for (int i = 0; args[i]; i++)
    g_ptr_array_add (a, (gpointer) args[i]);
  argv = tool_argv (a);
  g_ptr_array_unref (a);
  cmd = g_strjoinv (" ", argv);
  g_test_message ("starting %s", cmd);
  g_free (cmd);
  memset (c, 0, sizeof (*c));
  g_assert_true (g_spawn_async_with_pipes (NULL, argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, child_setup, NULL, &c->pid, NULL,
          &c->out_fd, &c->err_fd, &error));
  g_assert_no_error (error);
  g_strfreev (argv);
  g_assert_cmpint (fcntl (c->out_fd, F_SETFL, O_NONBLOCK), ==, 0);
  g_assert_cmpint (fcntl (c->err_fd, F_SETFL, O_NONBLOCK), ==, 0);
  c->out = g_string_new (NULL);
  c->err = g_string_new (NULL);
}

static void
drain (int fd, GString * s)
{
  char buf[4096];
  ssize_t n;

  while ((n = read (fd, buf, sizeof (buf))) > 0)
    g_string_append_len (s, buf, n);
}

/* Reads what the tool printed so far; TRUE once it has exited. */
static gboolean
child_poll (Child * c)
{
  pid_t r;

  drain (c->out_fd, c->out);
  drain (c->err_fd, c->err);
  if (c->exited)
    return TRUE;
  r = waitpid (c->pid, &c->status, WNOHANG);
  g_assert_cmpint (r, >=, 0);
  if (r == c->pid) {
    c->exited = TRUE;
    drain (c->out_fd, c->out);
    drain (c->err_fd, c->err);
  }
  return c->exited;
}

/* Waits for the tool to exit (killing it and failing after
 * EXIT_TIMEOUT); returns its raw wait status. */
static int
child_wait (Child * c)
{
  gint64 end = g_get_monotonic_time () + EXIT_TIMEOUT * G_USEC_PER_SEC;

  while (!child_poll (c)) {
    if (g_get_monotonic_time () > end) {
      kill (c->pid, SIGKILL);
      waitpid (c->pid, &c->status, 0);
      c->exited = TRUE;
      g_error ("the tool did not exit within %d s", EXIT_TIMEOUT);
    }
    g_usleep (10 * 1000);
  }
  if (!g_test_quiet ())
    g_printerr ("%s%s", c->out->str, c->err->str);
  return c->status;
}

static void
child_clear (Child * c)
{
  g_spawn_close_pid (c->pid);
  close (c->out_fd);
  close (c->err_fd);
  g_string_free (c->out, TRUE);
  g_string_free (c->err, TRUE);
}

/* The number of files in @dir whose name passes @pred. */
static guint
count_in_dir (const char *dir, gboolean (*pred) (const char *))
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  if (!d)
    return 0;
  while ((name = g_dir_read_name (d)))
    n += pred (name);
  g_dir_close (d);
  return n;
}

/* Waits until @dir holds a file that @pred accepts; fails when the tool
 * exits first or after START_TIMEOUT. */
static void
wait_for_file (Child * c, const char *dir, gboolean (*pred) (const char *),
    const char *what)
{
  gint64 end = g_get_monotonic_time () + START_TIMEOUT * G_USEC_PER_SEC;

  while (count_in_dir (dir, pred) == 0) {
    if (child_poll (c))
      g_error ("the tool exited (status 0x%x) before writing %s:\n%s%s",
          c->status, what, c->out->str, c->err->str);
    if (g_get_monotonic_time () > end) {
      kill (c->pid, SIGKILL);
      g_error ("no %s in %s after %d s", what, dir, START_TIMEOUT);
    }
    g_usleep (5 * 1000);
  }
}

/* Every *.png of @out is a complete file equal to its input; the temporary
 * files left are counted in *@n_temp (none allowed when @n_temp is NULL).
 * Returns the number of *.png. */
static guint
check_outputs (const char *in, const char *out, guint * n_temp)
{
  GPtrArray *names = list_dir (out);
  guint n_png = 0, n_tmp = 0;

  for (guint i = 0; i < names->len; i++) {
    const char *name = g_ptr_array_index (names, i);
    if (is_temp_name (name)) {
      /* NAME.png.tmp-XXXXXX: never a name the tool would take for a PNG */
      g_assert_false (is_png_name (name));
      n_tmp++;
    } else {
      char *a = g_build_filename (in, name, NULL);
      char *b = g_build_filename (out, name, NULL);
      g_assert_true (is_png_name (name));
      assert_same_files (a, b);
      n_png++;
      g_free (a);
      g_free (b);
    }
  }
  g_ptr_array_unref (names);
  if (n_temp)
    *n_temp = n_tmp;
  else
    g_assert_cmpuint (n_tmp, ==, 0);
  return n_png;
}

static gboolean
is_output_png (const char *name)
{
  return is_png_name (name) && !is_temp_name (name);
}

/* SIGINT once the first output is there: the file in progress is
 * finished, the rest not started, status 130; a second run without
 * --overwrite skips what was written and does the rest. */
static void
test_interrupt (void)
{
  const char *in = slow_input ();
  char *out = tmp_path ("int-out"), *o;
  const char *args[] = { "--jobs", "1", "--compression", "9", in, out, NULL };
  guint processed, skipped, failed, not_started, n_png, n_tmp;
  Child c;
  int status;
  char want[64];

  child_start (&c, args);
  wait_for_file (&c, out, is_output_png, "a first output");
  g_assert_cmpint (kill (c.pid, SIGINT), ==, 0);
  status = child_wait (&c);
  g_test_message ("stdout:\n%s\nstderr:\n%s", c.out->str, c.err->str);
  g_assert_false (WIFSIGNALED (status));
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, EXIT_INTERRUPTED);
  g_assert_true (strstr (c.out->str, "interrupted")
      || strstr (c.err->str, "interrupted"));
  g_assert_nonnull (strstr (c.out->str, "not started"));
  parse_summary (c.out->str, &processed, &skipped, &failed, &not_started);
  g_assert_cmpuint (skipped, ==, 0);
  g_assert_cmpuint (failed, ==, 0);
  g_assert_cmpuint (processed, >=, 1);
  g_assert_cmpuint (processed + not_started, ==, N_SLOW_FILES);
  g_assert_cmpuint (processed, <, N_SLOW_FILES);
  /* no partial PNG, no temporary file: the file in progress was ended */
  n_png = check_outputs (in, out, NULL);
  g_assert_cmpuint (n_png, ==, processed);
  child_clear (&c);

  /* the rest, keeping what is there */
  g_assert_cmpint (run_tool (&o, NULL, "--compression", "0", in, out, NULL),
      ==, 0);
  g_snprintf (want, sizeof (want), "processed %u, skipped %u, failed 0,",
      N_SLOW_FILES - n_png, n_png);
  g_assert_nonnull (strstr (o, want));
  g_assert_null (strstr (o, "not started"));
  g_assert_null (strstr (o, "interrupted"));
  g_free (o);
  g_assert_cmpuint (check_outputs (in, out, &n_tmp), ==, N_SLOW_FILES);
  g_assert_cmpuint (n_tmp, ==, 0);
  remove_tree (out);
  g_free (out);
}

/* SIGKILL mid-run, while a file is being written: every *.png is complete
 * (temporary file, then rename); temporary files may stay. A second run
 * without --overwrite completes the folder and removes them: each is that
 * of a file without output (renamed, it would be gone), which the second
 * run writes. */
static void
test_kill (void)
{
  const char *in = slow_input ();
  char *out = tmp_path ("kill-out");
  const char *args[] = { "--jobs", "1", "--compression", "9", in, out, NULL };
  guint n_png, n_tmp;
  Child c;
  int status;

  child_start (&c, args);
  wait_for_file (&c, out, is_output_png, "a first output");
  /* best when a file is half written: wait for its temporary file */
  wait_for_file (&c, out, is_temp_name, "a temporary file");
  g_assert_cmpint (kill (c.pid, SIGKILL), ==, 0);
  status = child_wait (&c);
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGKILL);
  n_png = check_outputs (in, out, &n_tmp);
  g_test_message ("killed: %u outputs, %u temporary files", n_png, n_tmp);
  g_assert_cmpuint (n_png, >=, 1);
  child_clear (&c);

  g_assert_cmpint (run_tool (NULL, NULL, "--compression", "0", in, out,
          NULL), ==, 0);
  g_assert_cmpuint (check_outputs (in, out, NULL), ==, N_SLOW_FILES);
  remove_tree (out);
  g_free (out);
}

/* SIGTERM then SIGINT: the second signal ends the tool at once, status
 * 130; no *.png is partial, temporary files may stay. */
static void
test_double_signal (void)
{
  const char *in = slow_input ();
  char *out = tmp_path ("double-out");
  const char *args[] = { "--jobs", "1", "--compression", "9", in, out, NULL };
  guint n_png, n_tmp;
  Child c;
  int status;

  child_start (&c, args);
  wait_for_file (&c, out, is_output_png, "a first output");
  g_assert_cmpint (kill (c.pid, SIGTERM), ==, 0);
  g_usleep (20 * 1000);
  /* the tool may have ended already (the file in progress was short) */
  if (!child_poll (&c))
    kill (c.pid, SIGINT);
  status = child_wait (&c);
  g_assert_false (WIFSIGNALED (status));
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, EXIT_INTERRUPTED);
  n_png = check_outputs (in, out, &n_tmp);
  g_test_message ("two signals: %u outputs, %u temporary files", n_png, n_tmp);
  g_assert_cmpuint (n_png, >=, 1);
  g_assert_cmpuint (n_png, <, N_SLOW_FILES);
  child_clear (&c);
  remove_tree (out);
  g_free (out);
}

int
main (int argc, char **argv)
{
  int ret;

  cf_test_require_backend ();
  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (cf_test_seed ());
  tmp_dir = g_dir_make_tmp ("test-batch-cli-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_test_add_func ("/batch-cli/no-op-and-bad-files", test_no_op_and_bad_files);
  g_test_add_func ("/batch-cli/no-op-pngsuite-lossless",
      test_no_op_pngsuite_lossless);
  g_test_add_func ("/batch-cli/resize", test_resize);
  g_test_add_func ("/batch-cli/stencil-rules", test_stencil_rules);
  g_test_add_func ("/batch-cli/stats-csv", test_stats_csv);
  g_test_add_func ("/batch-cli/stats-resume", test_stats_resume);
  g_test_add_func ("/batch-cli/stale-temps", test_stale_temps);
  g_test_add_func ("/batch-cli/shards", test_shards);
  g_test_add_func ("/batch-cli/refusals-and-existing",
      test_refusals_and_existing);
  g_test_add_func ("/batch-cli/backend-option", test_backend_option);
  g_test_add_func ("/batch-cli/backend-equality", test_backend_equality);
  g_test_add_func ("/batch-cli/limits-and-corrupt", test_limits_and_corrupt);
  g_test_add_func ("/batch-cli/interrupt", test_interrupt);
  g_test_add_func ("/batch-cli/kill", test_kill);
  g_test_add_func ("/batch-cli/double-signal", test_double_signal);
  ret = g_test_run ();
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_rand_free (rng);
  return ret;
}
