/* Tests of the command-line tool cudafilters-batch (CPU backend).
 *
 * Runs the tool (CF_BATCH_TOOL, set by meson) on folders made here from
 * PngSuite images (CF_PNGSUITE_DIR) and broken files, and checks the files
 * it writes with png-io.h and the kernel library's CPU references.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "png-io.h"
#include "resize.h"

static char *tmp_dir;

static const char *const good_files[] = {
  "basn0g08.png", "basn0g16.png", "basn2c08.png", "basn3p04.png",
  "basn6a08.png", "basn4a08.png", "ibasn2c08.png", NULL
};

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static void
copy_suite_file (const char *name, const char *to_dir, const char *to_name)
{
  const char *suite = g_getenv ("CF_PNGSUITE_DIR");
  char *src = g_build_filename (suite ? suite : "tests/data/pngsuite", name,
      NULL);
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

/* Runs the tool with the NULL-terminated arguments; returns its exit
 * status, its stdout and stderr in @out and @err (may be NULL). */
static int
run_tool (char **out, char **err, ...)
{
  GPtrArray *argv = g_ptr_array_new ();
  const char *tool = g_getenv ("CF_BATCH_TOOL");
  GError *error = NULL;
  char *o = NULL, *e = NULL;
  int status = -1;
  va_list ap;
  const char *a;

  g_assert_nonnull (tool);
  g_ptr_array_add (argv, (gpointer) tool);
  va_start (ap, err);
  while ((a = va_arg (ap, const char *)))
      g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL,
          G_SPAWN_DEFAULT, NULL, NULL, &o, &e, &status, &error));
  g_assert_no_error (error);
  g_ptr_array_unref (argv);
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

static void
read_png (const char *path, CfPngImage * img)
{
  char err[256];
  int ret = cf_png_read (path, NULL, img, err, sizeof (err));
  if (ret < 0)
    g_error ("%s", err);
}

static void
assert_same_pixels (const CfImage * a, const CfImage * b)
{
  const CfFormatInfo *fi = cf_format_info (a->format);
  size_t row = (size_t) a->width * fi->plane[0].pixel_bytes;

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
  read_png (a, &ia);
  read_png (b, &ib);
  assert_same_pixels (&ia.image, &ib.image);
  cf_png_image_clear (&ia);
  cf_png_image_clear (&ib);
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
          CF_RESIZE_LANCZOS, 32, 32, 20, 11, 0, 0), ==, 0);
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

/* A constant picture has known statistics. */
static void
test_stats_csv (void)
{
  char *in = make_dir ("stats-in"), *out = tmp_path ("stats-out");
  char *csv = tmp_path ("stats.csv"), *p = g_build_filename (in, "c.png", NULL);
  char err[256], *text, **lines, **f;
  CfPngImage img = { 0 };
  GString *want = g_string_new ("c.png,1,7,5,GRAY8,gray,77,77,77,0,");

  g_assert_cmpint (cf_png_image_alloc (&img, CF_FORMAT_GRAY8, 7, 5), ==, 0);
  for (int y = 0; y < 5; y++)
    memset ((guint8 *) img.image.data[0] + y * img.image.pitch[0], 77, 7);
  g_assert_cmpint (cf_png_write (p, &img, 6, err, sizeof (err)), ==, 0);
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
  g_assert_cmpint (run_tool (NULL, NULL, "--backend", "cuda", in, out, NULL),
      ==, 2);
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
  g_assert_cmpint (run_tool (NULL, NULL, "--overwrite", "--quiet",
          "--backend", "cpu", in, out, NULL), ==, 0);
  check_size (p, 32, 32);
  g_free (p);
  g_free (inside);
  g_free (in);
  g_free (out);
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

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("test-batch-cli-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_test_add_func ("/batch-cli/no-op-and-bad-files", test_no_op_and_bad_files);
  g_test_add_func ("/batch-cli/resize", test_resize);
  g_test_add_func ("/batch-cli/stats-csv", test_stats_csv);
  g_test_add_func ("/batch-cli/shards", test_shards);
  g_test_add_func ("/batch-cli/refusals-and-existing",
      test_refusals_and_existing);
  ret = g_test_run ();
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
