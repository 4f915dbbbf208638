/* cudafilters-batch: the filters of gst-cudafilters on folders of PNG files.
 *
 * cudafilters-batch [options] INPUT_DIR OUTPUT_DIR
 *
 * The PNG files of INPUT_DIR (name ending in .png, any case; sub-folders
 * too with -r) are listed and sorted by their path relative to INPUT_DIR
 * (byte order), optionally split with --shard, and handed to a pool of
 * --jobs threads. Each thread decodes one file (png-io.h), applies the
 * operations in command-line order (--resize, --stencil, --stats) and
 * writes OUTPUT_DIR/RELATIVE_PATH (png-io writes a temporary file and
 * renames it). Statistics are kept per file and written in sorted file
 * order once every file is done, so the output does not depend on --jobs.
 *
 * Backends: cpu runs the kernel library's C references in the threads,
 * each picture split over cores / jobs threads (all the cores for fewer
 * files than jobs: cores / files), so that the jobs and the pictures'
 * threads share the cores; cuda runs its kernels (the same bytes) with one
 * BatchGpu per job (batch-cuda.h): each thread decodes into its context's
 * page-locked buffer, runs upload, kernels and download on the context's
 * stream, and encodes from page-locked memory, so the GPU work of one file
 * overlaps the decoding and encoding of the others. With --devices the
 * contexts are spread over the devices in turn. auto (the default) is cuda
 * when a device works, else cpu.
 *
 * Resuming: a file whose output exists is skipped (without --overwrite),
 * so a rerun of an interrupted or killed run does only what is missing.
 * With --stats it still decodes the skipped file and runs the operations
 * up to the last --stats (writing nothing), because the statistics file
 * describes the inputs of the whole run: a rerun writes the same file as a
 * run from scratch, never one of the written files only. A killed run may
 * leave png-io's temporary files, NAME.tmp-XXXXXX; before writing NAME the
 * tool removes those a previous run left (found once, at start, in the
 * folders of this run's outputs, for NAMEs of this run only: never another
 * shard's files in progress, nor files of other names).
 *
 * Interruption: the first SIGINT or SIGTERM stops the start of new files;
 * the files in progress are finished (their outputs are whole: png-io
 * writes a temporary file and renames it), the summary counts the files not
 * started, and the exit status is 130. A second signal exits at once,
 * which may leave NAME.tmp-XXXXXX files but never a partial NAME.
 *
 * Exit status: 0 when every file was written or skipped because its output
 * exists, 1 when any file failed (each failure is a line on stderr naming
 * the file, and the count is in the summary), 2 on a usage error, 130 when
 * interrupted.
 */
#include <errno.h>
#include <glib.h>
#include <signal.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch-ops.h"
#ifdef HAVE_CUDA
#include "batch-cuda.h"
#endif

#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130

typedef enum
{
  RESULT_PENDING,
  RESULT_DONE,
  RESULT_SKIPPED,               /* the output exists and no --overwrite */
  RESULT_FAILED,
  RESULT_NOT_STARTED            /* interrupted before the file's turn */
} ResultStatus;

typedef struct
{
  ResultStatus status;
  BatchStats *stats;            /* one per --stats, NULL without or on failure */
  /* a previous run's temporary files for this output, removed before it
   * is written; NULL: none */
  GPtrArray *stale_temps;
  int device;                   /* the CUDA device that ran it; -1: the CPU */
} FileResult;

typedef struct
{
  char *input_dir, *output_dir;
  GPtrArray *files;             /* relative paths, sorted, after --shard */
  FileResult *results;
  GPtrArray *ops;               /* BatchOp */
  int n_measure_ops;            /* the ops up to the last --stats */
  int compression;
  CfPngStrategy strategy;
  /* the CUDA backend: BatchGpu contexts, one per job, lent to the thread
   * that processes a file; NULL for the CPU backend. A thread of their own
   * makes them while the first files decode (CUDA's start-up takes a good
   * fraction of a second). */
  GAsyncQueue *gpus;
  GArray *devices;
  int jobs;
  int cpu_threads;              /* the CPU backend's threads per picture */
  GThread *gpu_maker;
  GPtrArray *gpu_all;           /* every context made, under lock */
  gint gpu_failed;              /* atomic: no context could be made */
  char gpu_error[256];          /* why, under lock */
  gint stop;                    /* atomic: interrupted, start no more files */
  CfPngLimits limits;
  gboolean overwrite, quiet, verbose, tty;

  GMutex lock;                  /* guards the counters and the terminal */
  guint done, written, skipped, failed, not_started;
  gint64 start_us;
  gint64 drawn_us;              /* last redraw of the terminal's line */
} Batch;

/* Options, filled by GOptionContext */
static gboolean opt_recursive, opt_overwrite, opt_quiet, opt_verbose;
static char *opt_method, *opt_stats_out, *opt_shard, *opt_backend;
static char *opt_devices, *opt_strategy;
static int opt_compression = CF_PNG_DEFAULT_COMPRESSION;
static int opt_jobs;
static gint64 opt_max_pixels = CF_PNG_DEFAULT_MAX_PIXELS;
static GPtrArray *opt_ops;
static int n_stats_ops;

static gboolean
parse_int (const char *s, int lo, int hi, int *out)
{
  char *end;
  gint64 v;

  if (!s || !*s || g_ascii_isspace (*s))
    return FALSE;
  errno = 0;
  v = g_ascii_strtoll (s, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return FALSE;
  *out = (int) v;
  return TRUE;
}

static gboolean
parse_double (const char *s, double *out)
{
  char *end;

  if (!s || !*s || g_ascii_isspace (*s))
    return FALSE;
  *out = g_ascii_strtod (s, &end);
  return !*end && isfinite (*out);
}

/* --resize WxH | W | xH | N% */
static gboolean
parse_resize (BatchOp * op, const char *s)
{
  const char *x = strchr (s, 'x');
  size_t len = strlen (s);

  if (len > 1 && s[len - 1] == '%') {
    char *num = g_strndup (s, len - 1);
    gboolean ok = parse_double (num, &op->percent) && op->percent > 0;
    g_free (num);
    op->size_mode = SIZE_PERCENT;
    return ok;
  }
  if (!x) {
    op->size_mode = SIZE_WIDTH;
    return parse_int (s, 1, CF_MAX_SIDE, &op->width);
  }
  if (x == s) {
    op->size_mode = SIZE_HEIGHT;
    return parse_int (s + 1, 1, CF_MAX_SIDE, &op->height);
  } else {
    char *w = g_strndup (s, x - s);
    gboolean ok = parse_int (w, 1, CF_MAX_SIDE, &op->width)
        && parse_int (x + 1, 1, CF_MAX_SIDE, &op->height);
    g_free (w);
    op->size_mode = SIZE_BOTH;
    return ok;
  }
}

static int
lookup (const char *const *names, const char *s)
{
  for (int i = 0; names[i]; i++)
    if (g_ascii_strcasecmp (names[i], s) == 0)
      return i;
  return -1;
}

static const char *const method_names[] = {
  "nearest", "bilinear", "bicubic", "lanczos", "area", NULL
};

/* in CfPngStrategy order */
static const char *const strategy_names[] = { "auto", "default", "rle", NULL };

/* Sets one KEY=VALUE of --stencil (@pair is changed). */
static gboolean
set_stencil_pair (GstCfStencilSettings * st, char *pair, GError ** error)
{
  char *eq = strchr (pair, '=');
  const char *key = pair;

  if (!eq) {
    g_set_error (error, GST_CF_STENCIL_SETTINGS_ERROR, 0, "'%s' is no "
        "KEY=VALUE", pair);
    return FALSE;
  }
  *eq = '\0';
  /* the spellings of --help before the keys were cudastencil's names */
  if (!strcmp (key, "value"))
    key = "border-value";
  else if (!strcmp (key, "alpha"))
    key = "filter-alpha";
  return gst_cf_stencil_settings_set (st, key, eq + 1, error);
}

/* --stencil PRESET[:KEY=VALUE,...] or taps=LIST[:KEY=VALUE,...]: the KEYs
 * are cudastencil's property names, with its defaults, limits and rules
 * (gstcfstencilsettings.h). A value's own commas (taps, border-value) are
 * told from the pairs' by the '=' every pair has. */
static gboolean
parse_stencil (BatchOp * op, const char *spec, GError ** error)
{
  GstCfStencilSettings *st = &op->stencil;
  const char *colon = strchr (spec, ':');
  char *head = colon ? g_strndup (spec, colon - spec) : g_strdup (spec);
  char **items = g_strsplit (colon ? colon + 1 : "", ",", -1);
  GError *why = NULL;
  CfStencilPlan plan;
  gboolean ok;

  gst_cf_stencil_settings_init (st);
  if (g_str_has_prefix (head, "taps="))
    ok = set_stencil_pair (st, head, &why);
  else
    ok = gst_cf_stencil_settings_set (st, "preset", head, &why);
  for (int i = 0; ok && items[i]; i++) {
    GString *pair = g_string_new (items[i]);

    while (items[i + 1] && *items[i + 1] && !strchr (items[i + 1], '='))
      g_string_append_printf (pair, ",%s", items[++i]);
    ok = !pair->len || set_stencil_pair (st, pair->str, &why);
    g_string_free (pair, TRUE);
  }
  /* what the plan checks (lists, sums, gain, border values) is refused
   * here as the element refuses it at negotiation; against 16-bit samples,
   * so that only a border value above 255 waits for the 8-bit files it
   * does not fit */
  ok = ok && gst_cf_stencil_settings_plan (st, CF_FORMAT_GRAY16_LE, 8, 8,
      &plan, &why);
  if (!ok) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--stencil %s: %s", spec, why->message);
    g_error_free (why);
  }
  g_strfreev (items);
  g_free (head);
  return ok;
}

static gboolean
add_op_cb (const char *name, const char *value, gpointer data, GError ** error)
{
  BatchOp *op = g_new0 (BatchOp, 1);

  if (!strcmp (name, "--stats")) {
    op->kind = OP_STATS;
    op->stats_index = n_stats_ops++;
  } else if (!strcmp (name, "--resize")) {
    op->kind = OP_RESIZE;
    if (!parse_resize (op, value)) {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--resize %s: expected WxH, W, xH or N%% (sides 1..%d)", value,
          CF_MAX_SIDE);
      g_free (op);
      return FALSE;
    }
  } else {
    op->kind = OP_STENCIL;
    if (!parse_stencil (op, value, error)) {
      batch_op_free (op);
      return FALSE;
    }
  }
  g_ptr_array_add (opt_ops, op);
  return TRUE;
}

static const GOptionEntry entries[] = {
  {"recursive", 'r', 0, G_OPTION_ARG_NONE, &opt_recursive,
      "Descend into sub-folders (the output mirrors them)", NULL},
  {"resize", 0, 0, G_OPTION_ARG_CALLBACK, add_op_cb,
        "Scale to WxH; W or xH keep the aspect ratio; N% scales both sides",
      "SIZE"},
  {"method", 0, 0, G_OPTION_ARG_STRING, &opt_method,
      "Resize method of every --resize: nearest, bilinear (default), "
        "bicubic, lanczos, area", "METHOD"},
  {"stencil", 0, 0, G_OPTION_ARG_CALLBACK, add_op_cb,
      "Filter with a preset or taps (see below)", "SPEC"},
  {"stats", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, add_op_cb,
      "Per-channel statistics of the picture at this point", NULL},
  {"stats-out", 0, 0, G_OPTION_ARG_FILENAME, &opt_stats_out,
      "Where statistics go: FILE.csv, or FILE.jsonl (JSON Lines)", "FILE"},
  {"compression", 0, 0, G_OPTION_ARG_INT, &opt_compression,
      "zlib level of the outputs, 0..9 (default 6)", "N"},
  {"zlib-strategy", 0, 0, G_OPTION_ARG_STRING, &opt_strategy,
        "auto (default): rle for photographs, else default; default: "
        "libpng's (filtered); rle: runs only, several times faster",
      "NAME"},
  {"jobs", 'j', 0, G_OPTION_ARG_INT, &opt_jobs,
      "Files processed at once (default: all cores)", "N"},
  {"shard", 0, 0, G_OPTION_ARG_STRING, &opt_shard,
      "Only files K, K+N, K+2N, ... (1-based) of the sorted list", "K/N"},
  {"max-pixels", 0, 0, G_OPTION_ARG_INT64, &opt_max_pixels,
      "Refuse pictures above this many pixels (default 100000000)", "N"},
  {"overwrite", 0, 0, G_OPTION_ARG_NONE, &opt_overwrite,
      "Replace existing outputs (default: keep them, skip the file)", NULL},
  {"quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet,
      "No progress and no summary; errors only", NULL},
  {"verbose", 'v', 0, G_OPTION_ARG_NONE, &opt_verbose,
      "A line per file, naming the CUDA device (or the CPU) that ran it",
      NULL},
  {"backend", 0, 0, G_OPTION_ARG_STRING, &opt_backend,
        "cuda, cpu, or auto (default): cuda when a CUDA device works",
      "NAME"},
  {"devices", 0, 0, G_OPTION_ARG_STRING, &opt_devices,
      "CUDA devices to spread the files over: all (default) or ids, "
        "e.g. 0,2", "LIST"},
  {NULL}
};

/* The text after the options; the stencil's names and limits are the
 * element's. Free with g_free (). */
static char *
make_description (void)
{
  char *presets = gst_cf_stencil_names_join (gst_cf_stencil_preset_names,
      ", ");
  char *directions =
      gst_cf_stencil_names_join (gst_cf_stencil_direction_names, "|");
  char *borders = gst_cf_stencil_names_join (gst_cf_stencil_border_names,
      "|");
  char *text = g_strdup_printf (
      "Operations (--resize, --stencil, --stats) apply in command-line "
      "order;\nwithout any the files are re-encoded losslessly.\n"
      "\n"
      "Stencil SPEC: PRESET[:KEY=VALUE,...] or taps=LIST[:KEY=VALUE,...],\n"
      "the KEYs being cudastencil's properties, with its defaults and "
      "limits:\n"
      "  PRESET        %s\n"
      "                (custom: the taps of taps=LIST)\n"
      "  taps=LIST     comma-separated taps, an odd number (2 radius + 1), "
      "at most %d\n"
      "  radius=R      box, gaussian, sharpen: 0..%d (default 0: the "
      "preset's own)\n"
      "  sigma=S       gaussian and sharpen: %g..%g (default %g)\n"
      "  amount=A      sharpen: %g..%g (default %g)\n"
      "  normalize=B   divide the taps by their sum (taps only, default "
      "true)\n"
      "  direction=%s (default both)\n"
      "  border=%s (default mirror)\n"
      "  border-value=V[,V...]  constant's samples per channel (R, G, B, "
      "A),\n"
      "                default 0; value=V is the same\n"
      "  filter-alpha=B  filter alpha too (default false: alpha is copied);"
      "\n                alpha=B is the same\n"
      "  B: true, false, yes, no, 1 or 0. Settings the preset does not use "
      "are\n  ignored; settings that make no filter are usage errors, and "
      "a border\n  value above 255 fails the 8-bit files.\n"
      "\n"
      "Statistics, per file and channel, in sorted file order:\n"
      "  CSV header: file,stats,width,height,format,channel,min,max,mean,"
      "variance,histogram\n"
      "  (stats: which --stats, 1-based; histogram: 256 counts separated "
      "by\n  spaces, 16-bit values binned by their high byte)\n"
      "  JSON Lines: one object per file and --stats, with the same fields\n"
      "  and a \"channels\" array.\n"
      "\n"
      "Resuming: an output that exists is kept and its file skipped "
      "(without\n--overwrite). With --stats a skipped file is still read "
      "and measured\n(not written): a rerun writes the whole statistics "
      "file, the same as a\nrun from scratch. Before writing NAME, the tool "
      "removes the temporary\nfiles NAME.tmp-XXXXXX a killed run left "
      "beside it (only those, only\nfor this run's outputs).\n"
      "\n"
      "Exit status: 0 all done, 1 some files failed, 2 usage error, "
      "130 interrupted.\n"
      "\n"
      "Examples:\n"
      "  cudafilters-batch -r --resize 50%% --method lanczos in/ out/\n"
      "  cudafilters-batch --stencil gaussian:sigma=2 --stats --stats-out "
      "s.csv in/ out/\n"
      "  cudafilters-batch --stencil taps=1,2,1:direction=horizontal in/ "
      "out/\n"
      "  cudafilters-batch --stencil box:border=constant,border-value=0,0,"
      "255 in/ out/\n"
      "  cudafilters-batch --resize x480 --shard 2/4 --jobs 8 in/ out/\n"
      "  cudafilters-batch --backend cuda --devices 0,1 --resize 1920x1080 "
      "in/ out/\n", presets, CF_STENCIL_MAX_TAPS, CF_STENCIL_MAX_RADIUS,
      GST_CF_STENCIL_MIN_SIGMA, GST_CF_STENCIL_MAX_SIGMA,
      GST_CF_STENCIL_DEFAULT_SIGMA, GST_CF_STENCIL_MIN_AMOUNT,
      GST_CF_STENCIL_MAX_AMOUNT, GST_CF_STENCIL_DEFAULT_AMOUNT, directions,
      borders);

  g_free (borders);
  g_free (directions);
  g_free (presets);
  return text;
}

static gboolean
is_png_name (const char *name)
{
  size_t n = strlen (name);
  return n > 4 && g_ascii_strcasecmp (name + n - 4, ".png") == 0;
}

/* Adds the PNG files under @dir (relative paths below @rel) to @files.
 * Symbolic links to folders are not followed (no loops). */
static void
list_files (const char *dir, const char *rel, gboolean recursive,
    GPtrArray * files)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (!d)
    return;
  while ((name = g_dir_read_name (d))) {
    char *path = g_build_filename (dir, name, NULL);
    char *sub = rel ? g_build_filename (rel, name, NULL) : g_strdup (name);
    GStatBuf st;

    if (g_lstat (path, &st) == 0 && S_ISDIR (st.st_mode)) {
      if (recursive)
        list_files (path, sub, recursive, files);
    } else if (is_png_name (name)) {
      g_ptr_array_add (files, sub);
      sub = NULL;
    }
    g_free (sub);
    g_free (path);
  }
  g_dir_close (d);
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The path with symbolic links resolved as far as the path exists, then
 * the rest made absolute lexically. */
static char *
resolve_path (const char *path)
{
  char *abs = g_canonicalize_filename (path, NULL);
  char *real = realpath (abs, NULL);
  char *res;

  if (real) {
    res = g_strdup (real);
    free (real);
  } else {
    char *parent = g_path_get_dirname (abs);
    char *base = g_path_get_basename (abs);
    char *rp = strcmp (parent, abs) ? resolve_path (parent) : g_strdup (abs);
    res = g_build_filename (rp, base, NULL);
    g_free (rp);
    g_free (base);
    g_free (parent);
  }
  g_free (abs);
  return res;
}

/* Finds the temporary files a killed run left beside this run's outputs
 * (png-io's NAME.tmp-XXXXXX, for a NAME of b->files only: never another
 * shard's file in progress nor a file of another name), reading each
 * output folder once; run_file () removes a file's before writing it. */
static void
find_stale_temps (Batch * b)
{
  const size_t suffix = strlen (CF_PNG_TEMP_SUFFIX);
  GHashTable *index = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTable *dirs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  GHashTableIter it;
  gpointer rel_dir;

  for (guint i = 0; i < b->files->len; i++) {
    const char *rel = g_ptr_array_index (b->files, i);
    g_hash_table_insert (index, (gpointer) rel, GUINT_TO_POINTER (i + 1));
    g_hash_table_add (dirs, g_path_get_dirname (rel));
  }
  g_hash_table_iter_init (&it, dirs);
  while (g_hash_table_iter_next (&it, &rel_dir, NULL)) {
    char *dir = g_build_filename (b->output_dir, rel_dir, NULL);
    GDir *d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d && (name = g_dir_read_name (d))) {
      size_t n = strlen (name);
      char *target;

      if (n <= suffix)
        continue;
      target = g_strndup (name, n - suffix);
      if (cf_png_is_temp_name (name, target)) {
        char *rel = strcmp (rel_dir, ".") ?
            g_build_filename (rel_dir, target, NULL) : g_strdup (target);
        guint i = GPOINTER_TO_UINT (g_hash_table_lookup (index, rel));

        if (i) {
          FileResult *r = &b->results[i - 1];
          if (!r->stale_temps)
            r->stale_temps = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (r->stale_temps, g_build_filename (dir, name,
                  NULL));
        }
        g_free (rel);
      }
      g_free (target);
    }
    if (d)
      g_dir_close (d);
    g_free (dir);
  }
  g_hash_table_unref (dirs);
  g_hash_table_unref (index);
}

static void
print_progress (Batch * b, const char *rel, const FileResult * r)
{
  const ResultStatus status = r->status;
  guint total = b->files->len;
  gint64 now = g_get_monotonic_time ();
  double secs = (now - b->start_us) / 1e6;
  double rate = secs > 0 ? b->done / secs : 0;

  if (b->quiet)
    return;
  if (b->tty && !b->verbose) {
    double eta;
    /* at most ten redraws a second, and the last one */
    if (b->done < total && now - b->drawn_us < G_USEC_PER_SEC / 10)
      return;
    b->drawn_us = now;
    eta = rate > 0 ? (total - b->done) / rate : 0;
    printf ("\r\033[K%u/%u  %.1f images/s  ETA %d:%02d", b->done, total,
        rate, (int) eta / 60, (int) eta % 60);
  } else {
    const int dev = r->device;
    char where[32] = "";

    if (b->verbose && status != RESULT_SKIPPED)
      g_snprintf (where, sizeof (where), dev < 0 ? " (CPU)" :
          " (CUDA device %d)", dev);
    printf ("[%u/%u] %s: %s%s\n", b->done, total, rel,
        status == RESULT_DONE ? "written" :
        status == RESULT_SKIPPED ? "skipped (output exists)" : "failed",
        where);
  }
  fflush (stdout);
}

/* Removes the temporary files a previous run left for @r's output. One
 * that cannot be removed stays, harmless: it is no name the tool reads. */
static void
remove_stale_temps (FileResult * r)
{
  for (guint i = 0; r->stale_temps && i < r->stale_temps->len; i++)
    g_unlink (g_ptr_array_index (r->stale_temps, i));
}

/* Decodes, filters and writes one file to @out; with @out NULL (its output
 * exists) only measures it: the ops up to the last --stats, nothing
 * written. Returns the status (RESULT_SKIPPED for a file measured), with
 * @err set on failure. */
static ResultStatus
run_file (Batch * b, const char *in, const char *out, FileResult * r,
    char *err, size_t err_len)
{
  const int n_ops = out ? (int) b->ops->len : b->n_measure_ops;
  CfPngImage img = { 0 };
  char *out_dir;
  char op_err[256] = "";
  int ret;
  r->device = -1;
#ifdef HAVE_CUDA
  /* a free context's page-locked buffer takes the decoded picture; while
   * none is made yet, ordinary memory does */
  BatchGpu *gpu = b->gpus ? g_async_queue_try_pop (b->gpus) : NULL;

  if (gpu)
    ret = cf_png_read_into (in, &b->limits, batch_gpu_input_alloc, gpu, &img,
        err, err_len);
  else
#endif
    ret = cf_png_read (in, &b->limits, &img, err, err_len);
  if (ret < 0)
    goto out;
  if (n_stats_ops)
    r->stats = g_new0 (BatchStats, n_stats_ops);
#ifdef HAVE_CUDA
  if (b->gpus) {
    while (!gpu && !g_atomic_int_get (&b->gpu_failed))
      gpu = g_async_queue_timeout_pop (b->gpus, 20000);
    if (!gpu) {
      g_mutex_lock (&b->lock);
      g_snprintf (op_err, sizeof (op_err), "no CUDA context: %s",
          b->gpu_error);
      g_mutex_unlock (&b->lock);
      ret = -1;
    } else {
      r->device = batch_gpu_device (gpu);
      ret = batch_gpu_bind (gpu, op_err, sizeof (op_err));
    }
    if (ret == 0)
      ret = batch_gpu_run (gpu, n_ops, &img, r->stats, op_err,
          sizeof (op_err));
  } else
#endif
    ret = batch_run_cpu ((BatchOp * const *) b->ops->pdata, n_ops,
        b->cpu_threads, &img, r->stats, op_err, sizeof (op_err));
  if (ret < 0) {
    g_snprintf (err, err_len, "%s: %s", in, op_err);
    goto out;
  }
  if (!out)
    goto out;
  out_dir = g_path_get_dirname (out);
  ret = g_mkdir_with_parents (out_dir, 0777);
  if (ret < 0)
    g_snprintf (err, err_len, "%s: cannot create the folder: %s", out_dir,
        g_strerror (errno));
  g_free (out_dir);
  if (ret == 0) {
    remove_stale_temps (r);
    ret = cf_png_write_with (out, &img, b->compression, b->strategy, err,
        err_len);
  }

out:
  cf_png_image_clear (&img);
#ifdef HAVE_CUDA
  if (gpu)
    g_async_queue_push (b->gpus, gpu);
#endif
  if (ret < 0) {
    g_clear_pointer (&r->stats, g_free);
    return RESULT_FAILED;
  }
  return out ? RESULT_DONE : RESULT_SKIPPED;
}

static void
process_file (gpointer data, gpointer user_data)
{
  Batch *b = user_data;
  guint i = GPOINTER_TO_UINT (data) - 1;
  const char *rel = g_ptr_array_index (b->files, i);
  FileResult *r = &b->results[i];
  char *in, *out;
  char err[512] = "";

  if (g_atomic_int_get (&b->stop)) {
    r->status = RESULT_NOT_STARTED;
    g_mutex_lock (&b->lock);
    b->not_started++;
    g_mutex_unlock (&b->lock);
    return;
  }
  in = g_build_filename (b->input_dir, rel, NULL);
  out = g_build_filename (b->output_dir, rel, NULL);
  if (b->overwrite || !g_file_test (out, G_FILE_TEST_EXISTS))
    r->status = run_file (b, in, out, r, err, sizeof (err));
  else if (n_stats_ops)
    /* the statistics are of the whole run, resumed or not */
    r->status = run_file (b, in, NULL, r, err, sizeof (err));
  else
    r->status = RESULT_SKIPPED;

  g_mutex_lock (&b->lock);
  b->done++;
  if (r->status == RESULT_DONE)
    b->written++;
  else if (r->status == RESULT_SKIPPED)
    b->skipped++;
  else
    b->failed++;
  if (r->status == RESULT_FAILED) {
    if (b->tty && !b->quiet)
      printf ("\r\033[K");
    fflush (stdout);
    fprintf (stderr, "cudafilters-batch: %s\n", err);
    fflush (stderr);
    b->drawn_us = 0;            /* the line was cleared: redraw it */
  }
  print_progress (b, rel, r);
  g_mutex_unlock (&b->lock);
  g_free (out);
  g_free (in);
}

static void
append_csv_field (GString * s, const char *field)
{
  if (!strpbrk (field, ",\"\r\n")) {
    g_string_append (s, field);
    return;
  }
  g_string_append_c (s, '"');
  for (const char *p = field; *p; p++) {
    if (*p == '"')
      g_string_append_c (s, '"');
    g_string_append_c (s, *p);
  }
  g_string_append_c (s, '"');
}

static void
append_json_string (GString * s, const char *str)
{
  g_string_append_c (s, '"');
  for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_printf (s, "\\%c", *p);
    else if (*p < 0x20)
      g_string_append_printf (s, "\\u%04x", *p);
    else
      g_string_append_c (s, *p);
  }
  g_string_append_c (s, '"');
}

/* Writes every statistic, in sorted file order. */
static gboolean
write_stats (const Batch * b, const char *path, gboolean json)
{
  GString *s = g_string_new (NULL);
  GError *error = NULL;
  gboolean ok;

  if (!json)
    g_string_append (s, "file,stats,width,height,format,channel,min,max,"
        "mean,variance,histogram\n");
  for (guint i = 0; i < b->files->len; i++) {
    const FileResult *r = &b->results[i];
    const char *rel = g_ptr_array_index (b->files, i);

    if (!r->stats)
      continue;
    for (int k = 0; k < n_stats_ops; k++) {
      const CfStats *st = &r->stats[k].stats;
      const int info[3] = { r->stats[k].width, r->stats[k].height,
        r->stats[k].format
      };
      const CfFormatInfo *fi = cf_format_info (info[2]);

      if (json) {
        g_string_append (s, "{\"file\":");
        append_json_string (s, rel);
        g_string_append_printf (s, ",\"stats\":%u,\"width\":%d,\"height\":%d,"
            "\"format\":\"%s\",\"channels\":[", k + 1, info[0], info[1],
            fi->name);
      }
      for (guint c = 0; c < st->n_channels; c++) {
        if (json) {
          g_string_append_printf (s, "%s{\"channel\":\"%s\",", c ? "," : "",
              fi->channel_names[c]);
          g_string_append_printf (s, "\"min\":%u,\"max\":%u,\"mean\":%.17g,"
              "\"variance\":%.17g,\"histogram\":[", st->min[c], st->max[c],
              cf_stats_mean (st, c), cf_stats_variance (st, c));
        } else {
          append_csv_field (s, rel);
          g_string_append_printf (s, ",%u,%d,%d,%s,%s,%u,%u,%.17g,%.17g,",
              k + 1, info[0], info[1], fi->name, fi->channel_names[c],
              st->min[c], st->max[c], cf_stats_mean (st, c),
              cf_stats_variance (st, c));
        }
        for (int h = 0; h < CF_STATS_BINS; h++)
          g_string_append_printf (s, "%s%u", h ? (json ? "," : " ") : "",
              st->histogram[c][h]);
        g_string_append (s, json ? "]}" : "\n");
      }
      if (json)
        g_string_append (s, "]}\n");
    }
  }
  ok = g_file_set_contents (path, s->str, s->len, &error);
  if (!ok) {
    fprintf (stderr, "cudafilters-batch: %s\n", error->message);
    g_error_free (error);
  }
  g_string_free (s, TRUE);
  return ok;
}

/* The thread that takes SIGINT and SIGTERM (blocked in every other
 * thread): the first stops the start of new files, the second exits. */
static gpointer
watch_signals (gpointer data)
{
  Batch *b = data;
  sigset_t set;
  int sig;

  sigemptyset (&set);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGTERM);
  for (;;) {
    if (sigwait (&set, &sig) != 0)
      continue;
    if (g_atomic_int_get (&b->stop))
      _exit (EXIT_INTERRUPTED);
    g_atomic_int_set (&b->stop, 1);
    g_mutex_lock (&b->lock);
    if (b->tty && !b->quiet)
      printf ("\r\033[K");
    fflush (stdout);
    fprintf (stderr, "cudafilters-batch: interrupted: finishing the files in "
        "progress (signal again to quit now)\n");
    b->drawn_us = 0;
    g_mutex_unlock (&b->lock);
  }
  return NULL;
}

#ifdef HAVE_CUDA
/* The gpu-maker thread: one context per job, the devices taken in turn,
 * each lent out as soon as it is made. Stops at the first failure; the
 * files then go on with the contexts made, or fail when there are none. */
static gpointer
make_gpus (gpointer data)
{
  Batch *b = data;

  for (int j = 0; j < b->jobs && !g_atomic_int_get (&b->stop); j++) {
    char err[256];
    int dev = g_array_index (b->devices, int, j % b->devices->len);
    BatchGpu *gpu = batch_gpu_new (dev, (BatchOp * const *) b->ops->pdata,
        b->ops->len, err, sizeof (err));

    g_mutex_lock (&b->lock);
    if (!gpu) {
      g_snprintf (b->gpu_error, sizeof (b->gpu_error), "CUDA device %d: %s",
          dev, err);
      if (b->gpu_all->len)
        fprintf (stderr, "cudafilters-batch: %s (going on with %u jobs on "
            "the GPU)\n", b->gpu_error, b->gpu_all->len);
      else
        g_atomic_int_set (&b->gpu_failed, 1);
      g_mutex_unlock (&b->lock);
      break;
    }
    g_ptr_array_add (b->gpu_all, gpu);
    g_mutex_unlock (&b->lock);
    g_async_queue_push (b->gpus, gpu);
  }
  g_mutex_lock (&b->lock);
  if (!b->gpu_all->len) {
    /* interrupted first: nobody may wait for a context */
    if (!b->gpu_error[0])
      g_snprintf (b->gpu_error, sizeof (b->gpu_error), "interrupted");
    g_atomic_int_set (&b->gpu_failed, 1);
  }
  g_mutex_unlock (&b->lock);
  return NULL;
}
#endif

/* Fills @devices with the CUDA devices to use: none means the CPU backend.
 * Returns NULL, or the usage error. */
static const char *
choose_devices (GArray * devices)
{
  gboolean cuda = opt_backend && !strcmp (opt_backend, "cuda");
  int n = 0;

  if (opt_backend && !cuda && strcmp (opt_backend, "cpu")
      && strcmp (opt_backend, "auto"))
    return "--backend: auto, cpu or cuda";
  if (opt_backend && !strcmp (opt_backend, "cpu"))
    return opt_devices ? "--devices needs the CUDA backend" : NULL;
#ifdef HAVE_CUDA
  n = batch_cuda_device_count ();
#endif
  if (n == 0)
    return cuda ? "--backend cuda: no CUDA device (or a build without CUDA)"
        : opt_devices ? "--devices: no CUDA device (or a build without CUDA)"
        : NULL;
  if (!opt_devices || !strcmp (opt_devices, "all")) {
    for (int i = 0; i < n; i++)
      g_array_append_val (devices, i);
    return NULL;
  } else {
    static char why[256];
    char **ids = g_strsplit (opt_devices, ",", -1);
    gboolean ok = ids[0] != NULL;
    for (int i = 0; ok && ids[i]; i++) {
      int id;
      ok = parse_int (ids[i], 0, INT_MAX, &id);
      if (ok && id >= n) {
        g_snprintf (why, sizeof (why), "--devices: there is no CUDA device "
            "%d (this machine has %d: %d .. %d)", id, n, 0, n - 1);
        g_strfreev (ids);
        return why;
      }
      for (guint j = 0; ok && j < devices->len; j++)
        ok = g_array_index (devices, int, j) != id;
      if (ok)
        g_array_append_val (devices, id);
    }
    g_strfreev (ids);
    return ok ? NULL : "--devices: all, or distinct device ids separated "
        "by commas, below the number of devices";
  }
}

static int
usage_error (GOptionContext * ctx, const char *msg)
{
  fprintf (stderr, "cudafilters-batch: %s\n(see --help)\n", msg);
  g_option_context_free (ctx);
  return EXIT_USAGE;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx;
  GError *error = NULL;
  Batch b = { 0 };
  gboolean json = FALSE;
  int shard_k = 1, shard_n = 1, status, method = CF_RESIZE_BILINEAR;
  int strategy = CF_PNG_STRATEGY_AUTO;
  GThreadPool *pool;
  GThread *signals;
  GArray *devices = g_array_new (FALSE, FALSE, sizeof (int));
  const char *msg;
  char *in_real, *out_real;
  int jobs;
  sigset_t sigs;

  /* SIGINT and SIGTERM go to the signal thread only: blocked before any
   * other thread (the CUDA runtime makes some) exists */
  sigemptyset (&sigs);
  sigaddset (&sigs, SIGINT);
  sigaddset (&sigs, SIGTERM);
  pthread_sigmask (SIG_BLOCK, &sigs, NULL);
  g_mutex_init (&b.lock);
  signals = g_thread_new ("signals", watch_signals, &b);
  g_thread_unref (signals);

  opt_ops = g_ptr_array_new_with_free_func (batch_op_free);
  ctx = g_option_context_new ("INPUT_DIR OUTPUT_DIR");
  g_option_context_set_summary (ctx, "Applies gst-cudafilters' operations "
      "to every PNG file of INPUT_DIR,\nwriting the results under the same "
      "names in OUTPUT_DIR, on a GPU or on every CPU core.");
  {
    char *description = make_description ();
    g_option_context_set_description (ctx, description);
    g_free (description);
  }
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    int ret = usage_error (ctx, error->message);
    g_error_free (error);
    return ret;
  }
  if (argc != 3)
    return usage_error (ctx, "expected INPUT_DIR and OUTPUT_DIR");

  if (opt_method && (method = lookup (method_names, opt_method)) < 0)
    return usage_error (ctx, "--method: nearest, bilinear, bicubic, "
        "lanczos or area");
  for (guint k = 0; k < opt_ops->len; k++)
    ((BatchOp *) g_ptr_array_index (opt_ops, k))->method = method;
  if ((msg = choose_devices (devices)))
    return usage_error (ctx, msg);
  if (opt_strategy && (strategy = lookup (strategy_names, opt_strategy)) < 0)
    return usage_error (ctx, "--zlib-strategy: auto, default or rle");
  if (opt_compression < 0 || opt_compression > 9)
    return usage_error (ctx, "--compression: 0..9");
  if (opt_jobs < 0)
    return usage_error (ctx, "--jobs: at least 1");
  if (opt_max_pixels <= 0)
    return usage_error (ctx, "--max-pixels: at least 1");
  if (opt_shard) {
    char **kn = g_strsplit (opt_shard, "/", -1);
    gboolean ok = g_strv_length (kn) == 2
        && parse_int (kn[1], 1, G_MAXINT, &shard_n)
        && parse_int (kn[0], 1, shard_n, &shard_k);
    g_strfreev (kn);
    if (!ok)
      return usage_error (ctx, "--shard K/N: 1 <= K <= N");
  }
  if (n_stats_ops && !opt_stats_out)
    return usage_error (ctx, "--stats needs --stats-out FILE.csv or "
        "FILE.jsonl");
  if (opt_stats_out) {
    if (g_str_has_suffix (opt_stats_out, ".jsonl")
        || g_str_has_suffix (opt_stats_out, ".json"))
      json = TRUE;
    else if (!g_str_has_suffix (opt_stats_out, ".csv"))
      return usage_error (ctx, "--stats-out: the name must end in .csv, "
          ".jsonl or .json");
  }
  if (!g_file_test (argv[1], G_FILE_TEST_IS_DIR))
    return usage_error (ctx, "INPUT_DIR is not a folder");

  in_real = resolve_path (argv[1]);
  out_real = resolve_path (argv[2]);
  if (!strcmp (in_real, out_real) || (g_str_has_prefix (out_real, in_real)
          && (out_real[strlen (in_real)] == '/' || !strcmp (in_real, "/")))) {
    g_free (in_real);
    g_free (out_real);
    return usage_error (ctx, "OUTPUT_DIR must not be INPUT_DIR or inside it");
  }
  g_free (in_real);
  g_free (out_real);
  g_option_context_free (ctx);

  b.input_dir = argv[1];
  b.output_dir = argv[2];
  b.ops = opt_ops;
  for (guint k = 0; k < opt_ops->len; k++)
    if (((BatchOp *) g_ptr_array_index (opt_ops, k))->kind == OP_STATS)
      b.n_measure_ops = k + 1;
  b.compression = opt_compression;
  b.strategy = strategy;
  b.limits.max_pixels = (uint64_t) opt_max_pixels;
  b.overwrite = opt_overwrite;
  b.quiet = opt_quiet;
  b.verbose = opt_verbose && !opt_quiet;
  b.tty = isatty (STDOUT_FILENO);

  {
    GPtrArray *all = g_ptr_array_new_with_free_func (g_free);
    list_files (b.input_dir, NULL, opt_recursive, all);
    g_ptr_array_sort (all, compare_paths);
    b.files = g_ptr_array_new_with_free_func (g_free);
    for (guint i = 0; i < all->len; i++)
      if ((int) (i % shard_n) == shard_k - 1)
        g_ptr_array_add (b.files, g_strdup (g_ptr_array_index (all, i)));
    g_ptr_array_unref (all);
  }
  b.results = g_new0 (FileResult, b.files->len);
  find_stale_temps (&b);

  jobs = opt_jobs > 0 ? opt_jobs : (int) g_get_num_processors ();
  /* the CPU backend: the jobs at work at once (no more than the files)
   * share the cores, each picture split over its share (1 with the
   * default --jobs, all the cores for a single file) */
  b.cpu_threads = MAX (1, (int) g_get_num_processors () / MAX (1, MIN (jobs,
              (int) b.files->len)));

#ifdef HAVE_CUDA
  if (devices->len) {
    b.gpus = g_async_queue_new ();
    b.gpu_all = g_ptr_array_new ();
    b.devices = devices;
    b.jobs = jobs;
    b.gpu_maker = g_thread_new ("gpu-maker", make_gpus, &b);
  }
#endif
  if (!b.quiet) {
    printf ("%u files, %d jobs, ", b.files->len, jobs);
    if (!devices->len)
      printf ("CPU backend, %d thread%s per picture\n", b.cpu_threads,
          b.cpu_threads > 1 ? "s" : "");
#ifdef HAVE_CUDA
    for (guint i = 0; i < devices->len; i++) {
      char name[256];
      int dev = g_array_index (devices, int, i);
      batch_cuda_device_name (dev, name, sizeof (name));
      printf ("%s%d (%s)%s", i ? ", " : devices->len > 1 ?
          "CUDA backend on devices " : "CUDA backend on device ", dev, name,
          i + 1 == devices->len ? "\n" : "");
    }
#endif
    fflush (stdout);
  }

  b.start_us = g_get_monotonic_time ();
  pool = g_thread_pool_new (process_file, &b, jobs, FALSE, NULL);
  for (guint i = 0; i < b.files->len; i++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);

  g_mutex_lock (&b.lock);       /* the signal thread prints under it */
  status = g_atomic_int_get (&b.stop) ? EXIT_INTERRUPTED :
      b.failed ? EXIT_FAILED : 0;
  if (opt_stats_out && !write_stats (&b, opt_stats_out, json)
      && status == 0)
    status = EXIT_FAILED;
  if (!b.quiet) {
    if (b.tty && b.files->len)
      printf ("\n");
    if (status == EXIT_INTERRUPTED)
      printf ("interrupted\n");
    printf ("processed %u, skipped %u, failed %u", b.written, b.skipped,
        b.failed);
    if (status == EXIT_INTERRUPTED)
      printf (", not started %u", b.not_started);
    printf (", in %.2f s\n", (g_get_monotonic_time () - b.start_us) / 1e6);
  }
  fflush (stdout);
  g_mutex_unlock (&b.lock);

  for (guint i = 0; i < b.files->len; i++) {
    g_free (b.results[i].stats);
    if (b.results[i].stale_temps)
      g_ptr_array_unref (b.results[i].stale_temps);
  }
#ifdef HAVE_CUDA
  if (b.gpu_maker) {
    g_thread_join (b.gpu_maker);
    for (guint i = 0; i < b.gpu_all->len; i++)
      batch_gpu_free (g_ptr_array_index (b.gpu_all, i));
    g_ptr_array_unref (b.gpu_all);
    g_async_queue_unref (b.gpus);
  }
#endif
  g_array_unref (devices);
  g_free (b.results);
  g_ptr_array_unref (b.files);
  g_ptr_array_unref (opt_ops);
  /* b.lock stays: the signal thread may take it until the process ends */
  return status;
}
