/* See bench-common.h. */
#include "bench-common.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>
#include <gst/video/video.h>

FILE *bench_csv;
int bench_exit_status;
gboolean bench_cpu_only;
cudaStream_t bench_stream;

#define BATCH 50                /* timed launches queued behind one GPU sleep */
#define SLEEP_US 10000          /* ... long enough for the host to queue them */

static cudaEvent_t events[2 * BATCH];

void
bench_start (const char *prog, gboolean quick, const gchar * commit_opt,
    struct cudaDeviceProp *prop, gchar ** date, gchar ** commit,
    gchar ** gst_version)
{
  GDateTime *now = g_date_time_new_now_local ();
  int driver = 0, runtime = 0;
  gchar *cpu = bench_cpu_name ();

  if (bench_cpu_only) {
    memset (prop, 0, sizeof (*prop));
    snprintf (prop->name, sizeof (prop->name), "none (--cpu-only)");
  } else {
    CHECK_CUDA (cudaSetDevice (0));
    CHECK_CUDA (cudaGetDeviceProperties (prop, 0));
    CHECK_CUDA (cudaDriverGetVersion (&driver));
    CHECK_CUDA (cudaRuntimeGetVersion (&runtime));
    CHECK_CUDA (cudaStreamCreateWithFlags (&bench_stream,
            cudaStreamNonBlocking));
    for (int i = 0; i < 2 * BATCH; i++)
      CHECK_CUDA (cudaEventCreate (&events[i]));
  }
  *date = g_date_time_format (now, "%Y-%m-%d %H:%M:%S %Z");
  g_date_time_unref (now);
  *commit = git_commit (commit_opt);
  *gst_version = gst_version_string ();
  printf ("gst-cudafilters %s%s\n", prog,
      quick ? " --quick (smoke test: do not report)" : "");
  printf ("date:      %s\ncommit:    %s\n", *date, *commit);
  if (bench_cpu_only)
    printf ("device:    %s\n", prop->name);
  else
    printf ("device:    %s (sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB), driver "
        "%d, runtime %d\n", prop->name, prop->major, prop->minor,
        prop->multiProcessorCount, prop->l2CacheSize / 1048576.0,
        prop->totalGlobalMem / 1073741824.0, driver, runtime);
  printf ("cpu:       %s, %u cores\n", cpu, g_get_num_processors ());
  printf ("gstreamer: %s\n", *gst_version);
  g_free (cpu);
}

gchar *
bench_cpu_name (void)
{
  gchar *text = NULL, *name = NULL;

  if (g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL)) {
    const char *line = strstr (text, "model name");
    const char *colon = line ? strchr (line, ':') : NULL;

    if (colon)
      name = g_strstrip (g_strndup (colon + 1, strcspn (colon + 1, "\n")));
    g_free (text);
  }
  return name ? name : g_strdup ("unknown");
}

void
bench_finish (void)
{
  if (bench_cpu_only)
    return;
  for (int i = 0; i < 2 * BATCH; i++)
    CHECK_CUDA (cudaEventDestroy (events[i]));
  CHECK_CUDA (cudaStreamDestroy (bench_stream));
}

/* The median and least of the @n times in @us (sorted here, then freed)
 * into @t. */
static void
timing_of (Timing * t, double *us, int n)
{
  qsort (us, n, sizeof (double), cmp_double);
  t->median_us = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
  t->min_us = us[0];
  g_free (us);
}

Timing
time_launches (BenchLaunch launch, const void *work, int n, int warmup,
    int iters, gboolean queue_ahead)
{
  double *us = g_new (double, iters);
  Timing t = { 0 };

  for (int k = 0; k < warmup; k++)
    CHECK_CUDA (launch (work, k % n));
  CHECK_CUDA (cudaStreamSynchronize (bench_stream));
  for (int i = 0; i < iters;) {
    const int b = MIN (BATCH, iters - i);
    gint64 start;

    if (queue_ahead)
      CHECK_CUDA (bench_gpu_sleep (SLEEP_US, bench_stream));
    start = g_get_monotonic_time ();
    for (int j = 0; j < b; j++) {
      CHECK_CUDA (cudaEventRecord (events[2 * j], bench_stream));
      CHECK_CUDA (launch (work, (warmup + i + j) % n));
      CHECK_CUDA (cudaEventRecord (events[2 * j + 1], bench_stream));
    }
    if (queue_ahead && g_get_monotonic_time () - start > SLEEP_US * 9 / 10)
      t.host_bound = TRUE;
    CHECK_CUDA (cudaStreamSynchronize (bench_stream));
    for (int j = 0; j < b; j++, i++) {
      float ms;

      CHECK_CUDA (cudaEventElapsedTime (&ms, events[2 * j],
              events[2 * j + 1]));
      us[i] = 1000.0 * ms;
    }
  }
  timing_of (&t, us, iters);
  return t;
}

/* Per call when the calls run back to back: batches of BATCH calls (call
 * i on work i % @n) queued behind a GPU sleep, one event pair around each
 * batch, the batch's time over BATCH; median and least over the batches
 * (@iters calls in all, at least 3 batches). Launch gaps and each call's
 * setup overlap the previous call, as in a stream of frames. */
Timing
time_back_to_back (BenchLaunch launch, const void *work, int n, int warmup,
    int iters)
{
  const int batches = MAX (3, iters / BATCH);
  double *us = g_new (double, batches);
  Timing t = { 0 };

  for (int k = 0; k < warmup; k++)
    CHECK_CUDA (launch (work, k % n));
  for (int i = 0; i < batches; i++) {
    gint64 start;
    float ms;

    CHECK_CUDA (bench_gpu_sleep (SLEEP_US, bench_stream));
    start = g_get_monotonic_time ();
    CHECK_CUDA (cudaEventRecord (events[0], bench_stream));
    for (int j = 0; j < BATCH; j++)
      CHECK_CUDA (launch (work, (warmup + i * BATCH + j) % n));
    CHECK_CUDA (cudaEventRecord (events[1], bench_stream));
    if (g_get_monotonic_time () - start > SLEEP_US * 9 / 10)
      t.host_bound = TRUE;
    CHECK_CUDA (cudaStreamSynchronize (bench_stream));
    CHECK_CUDA (cudaEventElapsedTime (&ms, events[0], events[1]));
    us[i] = 1000.0 * ms / BATCH;
  }
  timing_of (&t, us, batches);
  return t;
}

const char *
timing_flag (Timing t)
{
  return t.host_bound ? "; HOST-BOUND: launch gaps may be timed" : "";
}

static void
csv_field (const char *s, gboolean last)
{
  fputc ('"', bench_csv);
  for (; *s; s++) {
    if (*s == '"')
      fputc ('"', bench_csv);
    fputc (*s, bench_csv);
  }
  fputs (last ? "\"\n" : "\",", bench_csv);
}

void
bench_table_header (const char *format, const char *const cols[10],
    const char *csv_cols, const char *const meta[][2], guint n_meta)
{
  printf ("\n");
  printf (format, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5],
      cols[6], cols[7], cols[8], cols[9]);
  if (!bench_csv)
    return;
  fprintf (bench_csv, "%s\n", csv_cols);
  for (guint i = 0; i < n_meta; i++) {
    fprintf (bench_csv, "\"meta\",\"%s\",,,,,,,,", meta[i][0]);
    csv_field (meta[i][1], TRUE);
  }
}

void
bench_table_row (const char *format, const char *const f[10])
{
  printf (format, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8],
      f[9]);
  fflush (stdout);
  if (bench_csv) {
    for (int i = 0; i < 10; i++)
      csv_field (strcmp (f[i], "-") ? f[i] : "", i == 9);
    fflush (bench_csv);
  }
}

gboolean
bench_parse_options (const char *prog, const char *description,
    const GOptionEntry * entries, int *argc, char ***argv)
{
  GOptionContext *ctx = g_option_context_new (description);
  GError *err = NULL;
  gboolean ok;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  ok = g_option_context_parse (ctx, argc, argv, &err);
  if (!ok) {
    fprintf (stderr, "%s: %s\n", prog, err->message);
    g_error_free (err);
  }
  g_option_context_free (ctx);
  return ok;
}

/* One line of the table and of the CSV; negative numbers are left empty. */
void
row (const char *section, const char *name, const char *format,
    const char *size, const char *data, double median_us, double min_us,
    double gbps, double fps, const char *note)
{
  const double x[4] = { median_us, min_us, gbps, fps };
  const char *f[10] = { section, name, format, size, data };
  char b[4][32];

  for (int i = 0; i < 4; i++) {
    if (x[i] < 0 || isnan (x[i]))
      strcpy (b[i], "-");
    else
      snprintf (b[i], sizeof (b[i]), "%.1f", x[i]);
    f[5 + i] = b[i];
  }
  f[9] = note;
  bench_table_row (ROW_FORMAT, f);
}

int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

void
fill_random (GRand * rand, uint8_t * p, size_t n)
{
  for (size_t i = 0; i < n; i += 4) {
    guint32 r = g_rand_int (rand);
    memcpy (p + i, &r, MIN (4, n - i));
  }
}

/* Notes the failure of a run; returns FALSE. */
gboolean
fail (PipeResult * r, const char *fmt, ...)
{
  va_list args;

  strcpy (r->note, "FAILED: ");
  va_start (args, fmt);
  vsnprintf (r->note + 8, sizeof (r->note) - 8, fmt, args);
  va_end (args);
  bench_exit_status = 2;
  return FALSE;
}

static GstPadProbeReturn
count_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer counter)
{
  g_atomic_int_inc ((gint *) counter);
  return GST_PAD_PROBE_OK;
}

void
add_counter (GstElement * pipeline, const char *name, gint * counter)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (e, "sink");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, counter, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

gboolean
bus_error (GstMessage * msg, PipeResult * r)
{
  GError *err = NULL;

  gst_message_parse_error (msg, &err, NULL);
  fail (r, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return FALSE;
}

/* Waits until *@counter >= @target; FALSE on an error message or after 30 s. */
gboolean
wait_count (GstBus * bus, gint * counter, gint target, PipeResult * r)
{
  gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;
  GstMessage *msg;

  while (g_atomic_int_get (counter) < target) {
    if ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)))
      return bus_error (msg, r);
    if (g_get_monotonic_time () > end)
      return fail (r, "stalled (%d of %d frames)", g_atomic_int_get (counter), target);
    g_usleep (500);
  }
  return TRUE;
}

/* Sets up and activates the pool that the element proposes for @caps (an
 * ALLOCATION query from appsrc's pad) and acquires @bufs from it. */
gboolean
pool_buffers (GstElement * src, GstCaps * caps, guint size, GstBuffer ** bufs,
    GstBufferPool ** pool, PipeResult * r)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  GstStructure *config;
  guint pool_size = 0, min = 0, max = 0;
  gboolean ok = FALSE;

  gst_allocation_params_init (&params);
  if (!gst_pad_peer_query (pad, query) || !gst_query_get_n_allocation_pools (query))
    goto out;
  gst_query_parse_nth_allocation_pool (query, 0, pool, &pool_size, &min, &max);
  if (!*pool)
    goto out;
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  config = gst_buffer_pool_get_config (*pool);
  /* no maximum: we hold POOL_BUFFERS at once, which a small one would block */
  gst_buffer_pool_config_set_params (config, caps, MAX (pool_size, size), min, 0);
  if (allocator)
    gst_buffer_pool_config_set_allocator (config, allocator, &params);
  if (gst_buffer_pool_has_option (*pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  /* a refused config comes back amended: take that one */
  if (!gst_buffer_pool_set_config (*pool, config)
      && !gst_buffer_pool_set_config (*pool, gst_buffer_pool_get_config (*pool)))
    fail (r, "the proposed pool refused its config");
  else if (!gst_buffer_pool_set_active (*pool, TRUE))
    fail (r, "could not activate the proposed pool");
  else
    ok = TRUE;
  for (int i = 0; ok && i < POOL_BUFFERS; i++)
    if (gst_buffer_pool_acquire_buffer (*pool, &bufs[i], NULL) != GST_FLOW_OK)
      ok = fail (r, "could not acquire %d buffers from the pool", POOL_BUFFERS);
out:
  if (!*pool)
    fail (r, "the element proposed no buffer pool (ALLOCATION query)");
  if (allocator)
    gst_object_unref (allocator);
  gst_object_unref (pad);
  gst_query_unref (query);
  return ok;
}

/* Whether CUDA knows @buf's memory as page-locked host memory. */
gboolean
buffer_is_pinned (GstBuffer * buf)
{
  struct cudaPointerAttributes attr;
  GstMapInfo map;
  gboolean pinned = FALSE;

  if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
    pinned = cudaPointerGetAttributes (&attr, map.data) == cudaSuccess
        && attr.type == cudaMemoryTypeHost;
    cudaGetLastError ();
    gst_buffer_unmap (buf, &map);
  }
  return pinned;
}

gboolean
caps_in_cuda_memory (const GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_size (caps) ?
      gst_caps_get_features (caps, 0) : NULL;

  return f && gst_caps_features_contains (f, BENCH_CAPS_FEATURE_CUDA_MEMORY);
}

/* GStreamer's GST_CUDA_MEMORY_TYPE_NAME: its allocator's memory type. */
gboolean
buffer_is_cuda (GstBuffer * buf)
{
  return gst_buffer_n_memory (buf) > 0 &&
      gst_memory_is_type (gst_buffer_peek_memory (buf, 0), "gst.cuda.memory");
}

/* Pushes a shallow copy of @buf: the same (pinned) memory in a buffer of its
 * own, so that a PTS is never written into a buffer still in flight. */
gboolean
push_copy (GstElement * src, GstBuffer * buf, guint64 n, PipeResult * r)
{
  GstBuffer *b = gst_buffer_copy (buf);
  GstFlowReturn ret;

  GST_BUFFER_PTS (b) = n * (GST_SECOND / 30);
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  if ((ret = gst_app_src_push_buffer (GST_APP_SRC (src), b)) != GST_FLOW_OK)
    return fail (r, "push returned %s", gst_flow_get_name (ret));
  return TRUE;
}

gchar *
git_commit (const gchar * given)
{
  gchar *out = NULL, *err = NULL;
  gint status;

  if (given)
    return g_strdup (given);
  if (g_spawn_command_line_sync ("git rev-parse --short HEAD", &out, &err,
          &status, NULL) && WIFEXITED (status) && !WEXITSTATUS (status)
      && out && *g_strstrip (out))
    goto done;
  g_free (out);
  out = g_strdup ("unknown");
done:
  g_free (err);
  return out;
}

void
table_header (const char *const meta[][2], guint n_meta)
{
  static const char *const cols[10] = { "section", "case", "fmt", "size",
    "data", "median_us", "min_us", "GB/s", "frames/s", "note"
  };

  bench_table_header (ROW_FORMAT, cols, "section,case,format,size,data,"
      "median_us,min_us,gbps,fps,note", meta, n_meta);
}

/* Into @buf, the memory of each element's output from @src down to the
 * sink as negotiated: "system > CUDA > ...". Capsfilters are left out:
 * they pass on the caps of the element before them. */
static void
link_memories (GstElement * src, char *buf, size_t size)
{
  GString *s = g_string_new (NULL);
  GstElement *e = gst_object_ref (src);

  while (e) {
    GstElementFactory *factory = gst_element_get_factory (e);
    GstPad *pad = gst_element_get_static_pad (e, "src"), *peer = NULL;
    GstCaps *caps;

    gst_object_unref (e);
    e = NULL;
    if (!pad)
      break;
    if (!factory || strcmp (GST_OBJECT_NAME (factory), "capsfilter")) {
      caps = gst_pad_get_current_caps (pad);
      g_string_append_printf (s, "%s%s", s->len ? " > " : "", !caps ? "?" :
          caps_in_cuda_memory (caps) ? "CUDA" : "system");
      if (caps)
        gst_caps_unref (caps);
    }
    peer = gst_pad_get_peer (pad);
    gst_object_unref (pad);
    if (peer) {
      e = gst_pad_get_parent_element (peer);
      gst_object_unref (peer);
    }
  }
  g_strlcpy (buf, s->str, size);
  g_string_free (s, TRUE);
}

/* Runs appsrc ! @element ! [@out_caps !] fakesink with @frames frames of
 * @caps after a warm-up (@held: frames the element may hold back): buffers
 * from the pool the element proposes (when @use_pool; the note says whether
 * they are pinned, or CUDA memory), else malloc'ed ones, filled with random
 * bytes once and pushed as shallow copies. frames/s from the wall clock
 * between the first timed push and EOS; GB/s counts @bytes_per_frame per
 * frame; r->memories what was negotiated. */
gboolean
run_pipeline (const char *element, const char *out_caps, GstCaps * caps,
    gboolean use_pool, int frames, int held, double bytes_per_frame,
    GRand * rand, PipeResult * r)
{
  /* the element the caps and the pool come from is "el": the first of a
   * chain names itself so (a later one would see no frame while the first
   * holds it) */
  const gboolean named = strstr (element, "name=el") != NULL;
  gchar *desc = g_strdup_printf ("appsrc name=src ! %s%s ! %s%s"
      "fakesink name=sink sync=false enable-last-sample=false", element,
      named ? "" : " name=el", out_caps ? out_caps : "",
      out_caps ? " ! " : "");
  const gboolean in_cuda = caps_in_cuda_memory (caps);
  GstCaps *first_caps = gst_caps_copy (caps);
  GstElement *pipeline, *src = NULL;
  GstBufferPool *pool = NULL;
  GstBuffer *bufs[POOL_BUFFERS] = { NULL };
  GstVideoInfo info;
  GstMessage *msg;
  GstBus *bus = NULL;
  GError *err = NULL;
  gint entered = 0, out = 0, out0;
  guint64 pushed = 0;
  gint64 t0, elapsed_us;
  gboolean ok = FALSE;

  r->fps = r->gbps = -1;
  r->note[0] = r->memories[0] = '\0';
  gst_video_info_from_caps (&info, caps);
  /* the negotiation frame below is ordinary memory: under CUDA memory caps
   * the element would take its host pointer for a device one. It goes in
   * system memory; the caps change to @caps after it. */
  if (in_cuda)
    gst_caps_set_features (first_caps, 0,
        gst_caps_features_new_single (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY));
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (err) {
    fail (r, "%s", err->message);
    g_error_free (err);
    goto done;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  /* an unbounded queue: a push never blocks (nor hangs on an error
   * downstream) and the element never waits for input */
  g_object_set (src, "caps", first_caps, "format", GST_FORMAT_TIME, "block",
      FALSE, "max-bytes", (guint64) 0, NULL);
  add_counter (pipeline, "el", &entered);
  add_counter (pipeline, "sink", &out);
  bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    fail (r, "could not start the pipeline");
    goto done;
  }

  /* one malloc'ed frame negotiates the caps: only a negotiated element
   * answers the ALLOCATION query */
  bufs[0] = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (bufs[0], 0, 0x80, info.size);
  if (!push_copy (src, bufs[0], pushed++, r) || !wait_count (bus, &entered, 1, r))
    goto done;
  gst_buffer_replace (&bufs[0], NULL);
  if (in_cuda && !use_pool) {
    fail (r, "frames in CUDA memory come from the element's pool only");
    goto done;
  }
  /* the element answers for @caps, whatever it negotiated */
  if (use_pool && !pool_buffers (src, caps, info.size, bufs, &pool, r))
    goto done;
  /* appsrc sends the new caps in order with the buffers */
  if (in_cuda)
    g_object_set (src, "caps", caps, NULL);
  for (int i = 0; i < POOL_BUFFERS; i++) {
    GstMapInfo map;
    if (!bufs[i])
      bufs[i] = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_map (bufs[i], &map, GST_MAP_WRITE);
    fill_random (rand, map.data, map.size);
    gst_buffer_unmap (bufs[i], &map);
  }
  {
    /* what the element gets: push_copy () shares the memory, unless it is
     * marked NO_SHARE (as does the element's own gst_buffer_make_writable);
     * CUDA memory is not mapped here (that would stage it on the host) */
    GstBuffer *copy = gst_buffer_copy (bufs[0]);
    const gboolean cuda = buffer_is_cuda (copy);

    snprintf (r->note, sizeof (r->note), "%s%s", cuda ? "CUDA memory" :
        buffer_is_pinned (copy) ? "pinned" : "not pinned",
        gst_buffer_peek_memory (copy, 0) == gst_buffer_peek_memory (bufs[0],
            0) ? "" : " (a copy re-allocates)");
    gst_buffer_unref (copy);
    /* frames meant for the GPU must be there: else the row measures
     * something else */
    if (use_pool && caps_in_cuda_memory (caps) && !cuda) {
      fail (r, "the proposed pool gave no CUDA memory for %s caps",
          BENCH_CAPS_FEATURE_CUDA_MEMORY);
      goto done;
    }
  }

  /* warm up; what is still in flight then comes out in the timed window,
   * which counts the frames that come out */
  for (int i = 0; i < POOL_BUFFERS; i++)
    if (!push_copy (src, bufs[i], pushed++, r))
      goto done;
  if (!wait_count (bus, &out, (gint) pushed - held, r))
    goto done;

  out0 = g_atomic_int_get (&out);
  t0 = g_get_monotonic_time ();
  for (int i = 0; i < frames; i++)
    if (!push_copy (src, bufs[i % POOL_BUFFERS], pushed++, r))
      goto done;
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  elapsed_us = g_get_monotonic_time () - t0;
  if (!msg) {
    fail (r, "no EOS within 600 s");
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    bus_error (msg, r);
  } else {
    r->fps = (g_atomic_int_get (&out) - out0) * 1e6 / elapsed_us;
    r->gbps = r->fps * bytes_per_frame / 1e9;
    gst_message_unref (msg);
    link_memories (src, r->memories, sizeof (r->memories));
    ok = TRUE;
  }

done:
  gst_caps_unref (first_caps);
  if (pipeline)
    gst_element_set_state (pipeline, GST_STATE_NULL);
  for (int i = 0; i < POOL_BUFFERS; i++)
    gst_buffer_replace (&bufs[i], NULL);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  if (bus)
    gst_object_unref (bus);
  if (src)
    gst_object_unref (src);
  if (pipeline)
    gst_object_unref (pipeline);
  return ok;
}

gboolean
bench_open (const char *prog, const char *element, const char *csv_path)
{
  GstElementFactory *factory;
  int n_devices = 0;
  cudaError_t err = bench_cpu_only ? cudaSuccess :
      cudaGetDeviceCount (&n_devices);

  if (!bench_cpu_only && (err != cudaSuccess || n_devices == 0)) {
    fprintf (stderr, "%s: no usable CUDA device (%s: %s); this benchmark "
        "needs one (--cpu-only, where a program has it, runs its CPU rows "
        "alone)\n", prog, cudaGetErrorName (err), cudaGetErrorString (err));
    return FALSE;
  }
  if (element) {
    if (!(factory = gst_element_factory_find (element))) {
      fprintf (stderr, "%s: no %s element: put the plugin's directory on "
          "GST_PLUGIN_PATH (e.g. GST_PLUGIN_PATH=%s), or pass --no-pipeline\n",
          prog, element, CF_PLUGIN_BUILD_DIR);
      return FALSE;
    }
    gst_object_unref (factory);
  }
  if (csv_path && !(bench_csv = fopen (csv_path, "w"))) {
    fprintf (stderr, "%s: cannot write %s\n", prog, csv_path);
    return FALSE;
  }
  return TRUE;
}

void
bench_frames_layout (BenchFrames * fs, CfFormat format, int width, int height)
{
  memset (fs, 0, sizeof (*fs));
  fs->format = format;
  fs->width = width;
  fs->height = height;
  for (int p = 0; p < cf_format_info (format)->n_planes; p++) {
    const size_t plane = cf_plane_row_bytes (format, p, width)
        * cf_plane_height (format, p, height);
    fs->offset[p] = fs->stride;
    fs->pitch[p] = cf_plane_row_bytes (format, p, width);
    fs->bytes += plane;
    fs->stride += (plane + 255) & ~(size_t) 255;
  }
}

int
bench_frames_pairs (const BenchFrames * src, const BenchFrames * dst,
    size_t l2_bytes)
{
  const size_t pair = src->stride + dst->stride;

  return MAX (4, (int) ((3 * l2_bytes + pair - 1) / pair));
}

void
bench_frames_alloc (BenchFrames * fs, int n)
{
  fs->n = n;
  CHECK_CUDA (cudaMalloc ((void **) &fs->d_base, n * fs->stride));
  CHECK_CUDA (cudaMemset (fs->d_base, 0, n * fs->stride));
  fs->host = g_malloc (fs->stride);
}

void
bench_frames_free (BenchFrames * fs)
{
  CHECK_CUDA (cudaFree (fs->d_base));
  g_free (fs->host);
  fs->d_base = fs->host = NULL;
}

void
bench_frames_fill_random (BenchFrames * fs, GRand * rand)
{
  for (int f = 0; f < fs->n; f++) {
    fill_random (rand, fs->host, fs->stride);
    CHECK_CUDA (cudaMemcpy (fs->d_base + f * fs->stride, fs->host, fs->stride,
            cudaMemcpyHostToDevice));
  }
}

CfImage
bench_frames_image (const BenchFrames * fs, int i)
{
  CfImage img = { fs->format, fs->width, fs->height };
  uint8_t *base = i < 0 ? fs->host : fs->d_base + i * fs->stride;

  for (int p = 0; p < cf_format_info (fs->format)->n_planes; p++) {
    img.data[p] = base + fs->offset[p];
    img.pitch[p] = fs->pitch[p];
  }
  return img;
}

cudaError_t
bench_frames_copy (const BenchFrames * src, const BenchFrames * dst, int i,
    size_t bytes)
{
  const size_t s = MIN (i * src->stride, src->n * src->stride - bytes);
  const size_t d = MIN (i * dst->stride, dst->n * dst->stride - bytes);

  return cudaMemcpyAsync (dst->d_base + d, src->d_base + s, bytes,
      cudaMemcpyDeviceToDevice, bench_stream);
}

size_t
bench_frames_check (const BenchFrames * fs, int i, char *note, size_t note_size)
{
  uint8_t *gpu = g_malloc (fs->stride);
  size_t bad = 0, first = 0;

  CHECK_CUDA (cudaMemcpyAsync (gpu, fs->d_base + i * fs->stride, fs->stride,
          cudaMemcpyDeviceToHost, bench_stream));
  CHECK_CUDA (cudaStreamSynchronize (bench_stream));
  for (int p = 0; p < cf_format_info (fs->format)->n_planes; p++)
    for (size_t k = fs->offset[p], e = k + fs->pitch[p] *
        cf_plane_height (fs->format, p, fs->height); k < e; k++)
      if (gpu[k] != fs->host[k] && !bad++)
        first = k;
  if (bad)
    snprintf (note, note_size, "MISMATCH: %zu bytes differ, the first "
        "%zu bytes into the frame", bad, first);
  else
    snprintf (note, note_size, "OK");
  g_free (gpu);
  return bad;
}

/* bench_transfers (), or with @print FALSE only the overlapped pair,
 * printing nothing (bench_overlapped_us ()) */
static double
transfers (const char *format, const char *size, size_t up,
    const char *up_name, size_t down, const char *down_name, int iters,
    gboolean print)
{
  double overlapped_us = -1;
  cudaStream_t s2;
  cudaEvent_t e[3];
  void *h_up, *h_down, *d_up, *d_down;
  double *t = g_new (double, iters);

  CHECK_CUDA (cudaHostAlloc (&h_up, up, cudaHostAllocPortable));
  CHECK_CUDA (cudaHostAlloc (&h_down, down, cudaHostAllocPortable));
  CHECK_CUDA (cudaMalloc (&d_up, up));
  CHECK_CUDA (cudaMalloc (&d_down, down));
  CHECK_CUDA (cudaStreamCreateWithFlags (&s2, cudaStreamNonBlocking));
  for (int i = 0; i < 3; i++)
    CHECK_CUDA (cudaEventCreate (&e[i]));
  memset (h_up, 0x5a, up);
  for (int what = print ? 0 : 2; what < 3; what++) {
    char name[64], note[160];

    if (what == 0)
      snprintf (name, sizeof (name), "pinned h2d %s", up_name);
    else if (what == 1)
      snprintf (name, sizeof (name), "pinned d2h %s", down_name);
    else
      snprintf (name, sizeof (name), "pinned h2d + d2h overlapped");
    for (int i = -3; i < iters; i++) {
      float ms;

      CHECK_CUDA (cudaEventRecord (e[0], bench_stream));
      if (what != 1)
        CHECK_CUDA (cudaMemcpyAsync (d_up, h_up, up, cudaMemcpyHostToDevice,
                bench_stream));
      if (what == 1)
        CHECK_CUDA (cudaMemcpyAsync (h_down, d_down, down,
                cudaMemcpyDeviceToHost, bench_stream));
      if (what == 2) {
        CHECK_CUDA (cudaStreamWaitEvent (s2, e[0], 0));
        CHECK_CUDA (cudaMemcpyAsync (h_down, d_down, down,
                cudaMemcpyDeviceToHost, s2));
        CHECK_CUDA (cudaEventRecord (e[2], s2));
        CHECK_CUDA (cudaStreamWaitEvent (bench_stream, e[2], 0));
      }
      CHECK_CUDA (cudaEventRecord (e[1], bench_stream));
      CHECK_CUDA (cudaEventSynchronize (e[1]));
      CHECK_CUDA (cudaEventElapsedTime (&ms, e[0], e[1]));
      if (i >= 0)
        t[i] = ms * 1e3;
    }
    qsort (t, iters, sizeof (double), cmp_double);
    if (what == 2)
      overlapped_us = t[iters / 2];
    if (!print)
      continue;
    snprintf (note, sizeof (note), "cudaMemcpyAsync, %s; frames/s: one "
        "frame's copies per median", what == 2 ? "two streams" : "one stream");
    row ("ceiling", name, format, size, "pinned", t[iters / 2], t[0],
        (what == 0 ? up : what == 1 ? down : up + down) / (t[iters / 2] * 1e3),
        1e6 / t[iters / 2], note);
  }
  for (int i = 0; i < 3; i++)
    CHECK_CUDA (cudaEventDestroy (e[i]));
  CHECK_CUDA (cudaStreamDestroy (s2));
  CHECK_CUDA (cudaFreeHost (h_up));
  CHECK_CUDA (cudaFreeHost (h_down));
  CHECK_CUDA (cudaFree (d_up));
  CHECK_CUDA (cudaFree (d_down));
  g_free (t);
  return overlapped_us;
}

double
bench_transfers (const char *format, const char *size, size_t up,
    const char *up_name, size_t down, const char *down_name, int iters)
{
  return transfers (format, size, up, up_name, down, down_name, iters, TRUE);
}

double
bench_overlapped_us (size_t up, size_t down, int iters)
{
  return transfers (NULL, NULL, up, NULL, down, NULL, iters, FALSE);
}

gboolean
bench_plugin_line (const char *element, guint * default_fif)
{
  GstElement *e = gst_element_factory_make (element, NULL);
  GstPlugin *plugin;
  GParamSpec *ps;

  if (!e) {
    printf ("plugin:    no %s element (GST_PLUGIN_PATH=%s?)\n", element,
        CF_PLUGIN_BUILD_DIR);
    return FALSE;
  }
  plugin = gst_plugin_feature_get_plugin (GST_PLUGIN_FEATURE
      (gst_element_get_factory (e)));
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "frames-in-flight");
  if (ps && G_IS_PARAM_SPEC_UINT (ps))
    *default_fif = G_PARAM_SPEC_UINT (ps)->default_value;
  printf ("plugin:    %s (frames-in-flight default %u)\n",
      plugin ? gst_plugin_get_filename (plugin) : "?", *default_fif);
  g_clear_object (&plugin);
  gst_object_unref (e);
  return TRUE;
}
