/* npp-resize-peer: NVIDIA NPP's resize, timed as bench-resize times
 * cf_resize_cuda (), for the peer rows of the cudaresize tables.
 *
 * Self-contained (no project headers; not built by meson: NPP is not a
 * dependency of the project). Build it where NPP is installed (CUDA 12 or
 * 13; run-resize-bench.sh does this on the GPU host):
 *
 *   nvcc -O2 -std=c++17 -arch=sm_90 -o npp-resize-peer \
 *       bench/npp-resize-peer.cu -lnppig -lnppc
 *
 * libnppig holds the geometry transforms (nppiResize_8u_C4R_Ctx), libnppc
 * the core; frames are cudaMalloc'ed, so libnppisu (nppiMalloc) is not
 * needed. Only the _Ctx entry points are used (CUDA 13 has no others).
 *
 * What it times: nppiResize_8u_C4R_Ctx (RGBA, 8 bits per sample) and
 * nppiResize_8u_C1R_Ctx (GRAY8: one 8-bit sample, a luma plane) for
 * 3840x2160->1920x1080, 1920x1080->3840x2160, 1920x1080->1280x720 and
 * 3840x2160->1280x720, whole picture to whole picture, with
 *   case      NPP mode            cudaresize method of the same row
 *   nearest   NPPI_INTER_NN       nearest
 *   bilinear  NPPI_INTER_LINEAR   bilinear
 *   bicubic   NPPI_INTER_CUBIC    bicubic (Catmull-Rom)
 *   lanczos   NPPI_INTER_LANCZOS  lanczos (3 lobes)
 *   area      NPPI_INTER_SUPER    area (downscaling only: skipped upscaling)
 * The filters are NPP's own (e.g. its linear and cubic do not widen their
 * support when downscaling, ours do), so the rows compare cost, not output.
 * Timing as bench-resize: one CUDA event pair around each call, the calls
 * of a batch queued behind a GPU sleep so that the host's overhead is not
 * timed, median and minimum of --iterations (default 200) after 20 warm-up
 * calls, on random frames rotated over at least 4 source/destination pairs
 * and 3 times the L2. GB/s = (source + destination bytes) / median. A
 * "ceiling" row per size is the same device-to-device copy as
 * bench-resize's. The columns are bench-resize's, so the tables line up.
 *
 * Usage: npp-resize-peer [--csv FILE] [--iterations N] [--quick]
 *                        [--size WxH>WxH]
 * --size keeps one of the sizes above (as the rows print it), e.g. to
 * profile NPP's kernels of one row under Nsight Compute.
 * Every CUDA and NPP call is checked: a failure (or an NPP warning) prints
 * the call and its status and exits with status 1. A "check" row per mode
 * makes sure one call wrote the destination (exit status 2 otherwise).
 */
#include <cuda_runtime.h>
#include <npp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#define CHECK_CUDA(call) do { \
    cudaError_t err_ = (call); \
    if (err_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, \
          cudaGetErrorName (err_), cudaGetErrorString (err_)); \
      exit (1); \
    } \
  } while (0)

#define CHECK_NPP(call) do { \
    NppStatus st_ = (call); \
    if (st_ != NPP_SUCCESS) { \
      fprintf (stderr, "%s:%d: %s: NppStatus %d (%s)\n", __FILE__, __LINE__, \
          #call, (int) st_, st_ < 0 ? "error" : "warning"); \
      exit (1); \
    } \
  } while (0)

#define ROW_FORMAT "%-8s %-26s %-5s %-19s %-7s %10s %10s %8s %9s  %s\n"

namespace {

constexpr int kBatch = 50;              /* timed calls behind one GPU sleep */
constexpr unsigned kSleepUs = 10000;    /* ... long enough to queue them */

FILE *csv;
int exit_status;                /* 2 when a check failed */
cudaStream_t stream;
cudaEvent_t events[2 * kBatch];

__global__ void
sleep_kernel (unsigned long long ns)
{
  unsigned long long start, now;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (start));
  do {
    __nanosleep (1000);
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (now));
  } while (now - start < ns);
}

void
csv_field (const char *s, bool last)
{
  fputc ('"', csv);
  for (; *s; s++) {
    if (*s == '"')
      fputc ('"', csv);
    fputc (*s, csv);
  }
  fputs (last ? "\"\n" : "\",", csv);
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
    if (x[i] < 0 || std::isnan (x[i]))
      strcpy (b[i], "-");
    else
      snprintf (b[i], sizeof (b[i]), "%.1f", x[i]);
    f[5 + i] = b[i];
  }
  f[9] = note;
  printf (ROW_FORMAT, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8],
      f[9]);
  fflush (stdout);
  if (csv) {
    for (int i = 0; i < 10; i++)
      csv_field (strcmp (f[i], "-") ? f[i] : "", i == 9);
    fflush (csv);
  }
}

/* n source/destination pairs of dense RGBA (4 channels) or GRAY8 (1)
 * frames, each frame 256-byte aligned. */
struct Pairs {
  int channels;
  const char *format;
  int in_w, in_h, out_w, out_h, n;
  size_t src_bytes, dst_bytes, src_stride, dst_stride;
  uint8_t *d_src, *d_dst;
};

struct Work {
  const Pairs *p;
  bool copy;                    /* the ceiling instead of NPP */
  int interp;
  size_t copy_bytes;
  NppStreamContext ctx;
};

void
launch (const Work & w, int i)
{
  const Pairs & p = *w.p;

  if (w.copy) {
    /* from pair i's start, kept inside the allocations */
    const size_t s = std::min (i * p.src_stride, p.n * p.src_stride - w.copy_bytes);
    const size_t d = std::min (i * p.dst_stride, p.n * p.dst_stride - w.copy_bytes);
    CHECK_CUDA (cudaMemcpyAsync (p.d_dst + d, p.d_src + s, w.copy_bytes,
            cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const NppiSize src_size = { p.in_w, p.in_h };
  const NppiRect src_roi = { 0, 0, p.in_w, p.in_h };
  const NppiSize dst_size = { p.out_w, p.out_h };
  const NppiRect dst_roi = { 0, 0, p.out_w, p.out_h };
  if (p.channels == 4)
    CHECK_NPP (nppiResize_8u_C4R_Ctx (p.d_src + i * p.src_stride,
            p.in_w * 4, src_size, src_roi, p.d_dst + i * p.dst_stride,
            p.out_w * 4, dst_size, dst_roi, w.interp, w.ctx));
  else
    CHECK_NPP (nppiResize_8u_C1R_Ctx (p.d_src + i * p.src_stride, p.in_w,
            src_size, src_roi, p.d_dst + i * p.dst_stride, p.out_w,
            dst_size, dst_roi, w.interp, w.ctx));
}

struct Timing {
  double median_us, min_us;
  bool host_bound;              /* the host did not stay ahead of the GPU */
};

double
now_us ()
{
  timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* bench-resize's time_launches (): @iters calls, an event pair around
 * each, call i on pair i % n, each batch queued behind a GPU sleep. */
Timing
time_calls (const Work & w, int warmup, int iters)
{
  const int n = w.p->n;
  std::vector<double> us (iters);
  Timing t = { 0, 0, false };

  for (int k = 0; k < warmup; k++)
    launch (w, k % n);
  CHECK_CUDA (cudaStreamSynchronize (stream));
  for (int i = 0; i < iters;) {
    const int b = std::min (kBatch, iters - i);

    sleep_kernel<<<1, 1, 0, stream>>> (1000ull * kSleepUs);
    CHECK_CUDA (cudaGetLastError ());
    const double start = now_us ();
    for (int j = 0; j < b; j++) {
      CHECK_CUDA (cudaEventRecord (events[2 * j], stream));
      launch (w, (warmup + i + j) % n);
      CHECK_CUDA (cudaEventRecord (events[2 * j + 1], stream));
    }
    if (now_us () - start > kSleepUs * 0.9)
      t.host_bound = true;
    CHECK_CUDA (cudaStreamSynchronize (stream));
    for (int j = 0; j < b; j++, i++) {
      float ms;
      CHECK_CUDA (cudaEventElapsedTime (&ms, events[2 * j], events[2 * j + 1]));
      us[i] = 1000.0 * ms;
    }
  }
  std::sort (us.begin (), us.end ());
  t.median_us = iters % 2 ? us[iters / 2] : (us[iters / 2 - 1] + us[iters / 2]) / 2;
  t.min_us = us[0];
  return t;
}

NppStreamContext
make_context (cudaStream_t s)
{
  NppStreamContext c;
  cudaDeviceProp prop;
  int dev = 0;

  memset (&c, 0, sizeof (c));   /* the reserved fields stay 0 */
  CHECK_CUDA (cudaGetDevice (&dev));
  CHECK_CUDA (cudaGetDeviceProperties (&prop, dev));
  c.hStream = s;
  c.nCudaDeviceId = dev;
  c.nMultiProcessorCount = prop.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  c.nSharedMemPerBlock = prop.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = prop.major;
  c.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  CHECK_CUDA (cudaStreamGetFlags (s, &c.nStreamFlags));
  return c;
}

void
timing_row (const char *section, const char *name, const Pairs & p,
    const char *size, Timing t, const char *note)
{
  char buf[224];

  snprintf (buf, sizeof (buf), "%s%s", note,
      t.host_bound ? "; HOST-BOUND: launch gaps may be timed" : "");
  row (section, name, p.format, size, "random", t.median_us, t.min_us,
      (p.src_bytes + p.dst_bytes) / (t.median_us * 1e3), -1, buf);
}

void
bench_size (int channels, int in_w, int in_h, int out_w, int out_h,
    size_t l2_bytes,
    const NppStreamContext & ctx, int warmup, int iters, uint32_t * seed)
{
  static const struct {
    const char *name, *mode;
    int interp;
  } modes[] = {
    {"nearest", "NPPI_INTER_NN", NPPI_INTER_NN},
    {"bilinear", "NPPI_INTER_LINEAR", NPPI_INTER_LINEAR},
    {"bicubic", "NPPI_INTER_CUBIC", NPPI_INTER_CUBIC},
    {"lanczos", "NPPI_INTER_LANCZOS", NPPI_INTER_LANCZOS},
    {"area", "NPPI_INTER_SUPER", NPPI_INTER_SUPER},
  };
  const bool downscale = out_w <= in_w && out_h <= in_h;
  Pairs p;
  char size[40], note[192];

  snprintf (size, sizeof (size), "%dx%d>%dx%d", in_w, in_h, out_w, out_h);
  p.channels = channels;
  p.format = channels == 4 ? "RGBA" : "GRAY8";
  p.in_w = in_w;
  p.in_h = in_h;
  p.out_w = out_w;
  p.out_h = out_h;
  p.src_bytes = (size_t) in_w * in_h * channels;
  p.dst_bytes = (size_t) out_w * out_h * channels;
  p.src_stride = (p.src_bytes + 255) & ~(size_t) 255;
  p.dst_stride = (p.dst_bytes + 255) & ~(size_t) 255;
  /* at least 4 pairs, and together 3 times the L2 */
  p.n = (int) std::max<size_t> (4, (3 * l2_bytes + p.src_stride
          + p.dst_stride - 1) / (p.src_stride + p.dst_stride));
  CHECK_CUDA (cudaMalloc ((void **) &p.d_src, p.n * p.src_stride));
  CHECK_CUDA (cudaMalloc ((void **) &p.d_dst, p.n * p.dst_stride));
  {
    std::vector<uint8_t> host (p.src_stride);
    for (int f = 0; f < p.n; f++) {
      for (size_t i = 0; i < host.size (); i++) {
        *seed = *seed * 1664525u + 1013904223u;
        host[i] = *seed >> 24;
      }
      CHECK_CUDA (cudaMemcpy (p.d_src + f * p.src_stride, host.data (),
              p.src_stride, cudaMemcpyHostToDevice));
    }
  }

  for (const auto & m : modes) {
    Work w = { &p, false, m.interp, 0, ctx };

    if (m.interp == NPPI_INTER_SUPER && !downscale) {
      row ("npp", m.name, p.format, size, "random", -1, -1, -1, -1,
          "skipped: NPPI_INTER_SUPER is for downscaling only");
      continue;
    }
    /* the call writes the destination (random sources: few zero bytes) */
    {
      std::vector<uint8_t> out (p.dst_bytes);
      size_t zeros = 0;
      CHECK_CUDA (cudaMemsetAsync (p.d_dst, 0, p.dst_bytes, stream));
      launch (w, 0);
      CHECK_CUDA (cudaMemcpyAsync (out.data (), p.d_dst, p.dst_bytes,
              cudaMemcpyDeviceToHost, stream));
      CHECK_CUDA (cudaStreamSynchronize (stream));
      for (uint8_t v : out)
        zeros += v == 0;
      if (zeros > p.dst_bytes / 50)
        exit_status = 2;
      snprintf (note, sizeof (note), "%s: %.2f%% of the destination bytes "
          "are 0 after one call", zeros > p.dst_bytes / 50 ? "SUSPECT" : "OK",
          100.0 * zeros / p.dst_bytes);
      row ("check", m.name, p.format, size, "random", -1, -1, -1, -1, note);
    }
    snprintf (note, sizeof (note), "nppiResize_8u_C%dR_Ctx %s; %d pairs "
        "rotated", channels, m.mode, p.n);
    timing_row ("npp", m.name, p, size, time_calls (w, warmup, iters), note);
  }

  Work c = { &p, true, 0, (p.src_bytes + p.dst_bytes) / 2, ctx };
  snprintf (note, sizeof (note), "cudaMemcpyAsync D2D of (src+dst)/2 = "
      "%.1f MB; %d pairs rotated", c.copy_bytes / 1e6, p.n);
  timing_row ("ceiling", "d2d copy", p, size, time_calls (c, warmup, iters),
      note);
  CHECK_CUDA (cudaFree (p.d_src));
  CHECK_CUDA (cudaFree (p.d_dst));
}

}  // namespace

int
main (int argc, char **argv)
{
  static const int sizes[][4] = {
    {3840, 2160, 1920, 1080}, {1920, 1080, 3840, 2160}, {1920, 1080, 1280, 720},
    {3840, 2160, 1280, 720},
  };
  const char *csv_path = nullptr, *only_size = nullptr;
  int iters = 200, warmup = 20, n_devices = 0, driver = 0, runtime = 0;
  uint32_t seed = 20240601;
  char date[64], npp_version[64] = "unknown";
  cudaDeviceProp prop;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--csv") && i + 1 < argc) {
      csv_path = argv[++i];
    } else if (!strcmp (argv[i], "--iterations") && i + 1 < argc) {
      iters = atoi (argv[++i]);
    } else if (!strcmp (argv[i], "--size") && i + 1 < argc) {
      only_size = argv[++i];
    } else if (!strcmp (argv[i], "--quick")) {
      iters = 20;
      warmup = 3;
    } else {
      const bool help = !strcmp (argv[i], "--help") || !strcmp (argv[i], "-h");
      fprintf (help ? stdout : stderr, "usage: %s [--csv FILE] "
          "[--iterations N] [--quick] [--size WxH>WxH]\n"
          "Times NPP's nppiResize_8u_C4R_Ctx and "
          "C1R_Ctx as "
          "bench-resize times cudaresize.\n", argv[0]);
      return help ? 0 : 1;
    }
  }
  /* whether --size is unset or names size @s, as the rows print it */
  auto size_kept = [&](const int (&s)[4]) {
    char name[40];

    snprintf (name, sizeof (name), "%dx%d>%dx%d", s[0], s[1], s[2], s[3]);
    return !only_size || !strcmp (name, only_size);
  };
  bool size_known = false;
  for (const auto & s : sizes)
    size_known = size_known || size_kept (s);
  if (!size_known) {
    fprintf (stderr, "npp-resize-peer: --size %s is not one of the table's "
        "sizes\n", only_size);
    return 1;
  }
  if (iters < 1) {
    fprintf (stderr, "npp-resize-peer: --iterations must be at least 1\n");
    return 1;
  }
  cudaError_t err = cudaGetDeviceCount (&n_devices);
  if (err != cudaSuccess || n_devices == 0) {
    fprintf (stderr, "npp-resize-peer: no usable CUDA device (%s: %s)\n",
        cudaGetErrorName (err), cudaGetErrorString (err));
    return 1;
  }
  if (csv_path && !(csv = fopen (csv_path, "w"))) {
    fprintf (stderr, "npp-resize-peer: cannot write %s\n", csv_path);
    return 1;
  }
  CHECK_CUDA (cudaSetDevice (0));
  CHECK_CUDA (cudaGetDeviceProperties (&prop, 0));
  CHECK_CUDA (cudaDriverGetVersion (&driver));
  CHECK_CUDA (cudaRuntimeGetVersion (&runtime));
  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (auto & e : events)
    CHECK_CUDA (cudaEventCreate (&e));
  const NppStreamContext ctx = make_context (stream);
  {
    const time_t t = time (nullptr);
    strftime (date, sizeof (date), "%Y-%m-%d %H:%M:%S %Z", localtime (&t));
  }
#if defined(NPP_VERSION_MAJOR) && defined(NPP_VERSION_MINOR) && defined(NPP_VERSION_BUILD)
  snprintf (npp_version, sizeof (npp_version), "%d.%d.%d (headers)",
      NPP_VERSION_MAJOR, NPP_VERSION_MINOR, NPP_VERSION_BUILD);
#endif

  printf ("gst-cudafilters npp-resize-peer%s\n", iters < 100 ?
      " (fewer than 100 iterations: smoke test, do not report)" : "");
  printf ("date:      %s\n", date);
  printf ("device:    %s (sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB), driver %d, runtime %d\n",
      prop.name, prop.major, prop.minor, prop.multiProcessorCount,
      prop.l2CacheSize / 1048576.0, prop.totalGlobalMem / 1073741824.0,
      driver, runtime);
  printf ("npp:       %s\n", npp_version);
  printf ("npp/ceiling: GPU time of each call (CUDA event pair), %d timed "
      "after %d warm-up; GB/s = (source + destination bytes) / median\n",
      iters, warmup);
  printf ("\n" ROW_FORMAT, "section", "case", "fmt", "size", "data",
      "median_us", "min_us", "GB/s", "frames/s", "note");
  if (csv) {
    const char *meta[][2] = { {"date", date}, {"device", prop.name},
      {"npp", npp_version} };
    fputs ("section,case,format,size,data,median_us,min_us,gbps,fps,note\n", csv);
    for (const auto & m : meta) {
      fprintf (csv, "\"meta\",\"%s\",,,,,,,,", m[0]);
      csv_field (m[1], true);
    }
  }

  /* RGBA, then GRAY8 (bench-resize's order) */
  for (int channels : { 4, 1 })
    for (const auto & s : sizes) {
      if (!size_kept (s))
        continue;
      bench_size (channels, s[0], s[1], s[2], s[3], prop.l2CacheSize, ctx,
          warmup, iters, &seed);
    }

  if (csv)
    fclose (csv);
  for (auto & e : events)
    CHECK_CUDA (cudaEventDestroy (e));
  CHECK_CUDA (cudaStreamDestroy (stream));
  if (exit_status)
    printf ("\nnpp-resize-peer: a check FAILED (see the notes)\n");
  return exit_status;
}
