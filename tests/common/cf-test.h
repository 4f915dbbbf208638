/* Helpers shared by the test programs.
 *
 * The suite runs each test program once per backend: CF_TEST_BACKEND=cpu
 * (the default) or CF_TEST_BACKEND=cuda. A CUDA run on a machine where no
 * CUDA device works (or a build without CUDA) exits 77, which meson counts
 * as skipped; on the GPU host every test must pass with none skipped.
 *
 * Random inputs come from a seed printed at start: CF_TEST_SEED=N repeats a
 * run.
 */
#ifndef CF_TEST_H
#define CF_TEST_H

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define CF_TEST_SKIP 77

/* TRUE when this run tests the CUDA backend. */
static inline gboolean
cf_test_want_cuda (void)
{
  const char *b = g_getenv ("CF_TEST_BACKEND");
  return b && strcmp (b, "cuda") == 0;
}

/* "cuda" or "cpu": the value for an element's backend property. */
static inline const char *
cf_test_backend_name (void)
{
  return cf_test_want_cuda () ? "cuda" : "cpu";
}

static inline gboolean
cf_test_cuda_works (void)
{
#ifdef HAVE_CUDA
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess || n < 1)
    return FALSE;
  return cudaFree (NULL) == cudaSuccess;
#else
  return FALSE;
#endif
}

#ifdef HAVE_CUDA
/* Fails the test, naming the CUDA error and the call, unless @call
 * returned cudaSuccess. */
#define CHECK_CUDA(call) G_STMT_START {                                 \
    cudaError_t err_ = (call);                                          \
    if (err_ != cudaSuccess)                                            \
      g_error ("%s:%d: %s: %s", __FILE__, __LINE__, #call,              \
          cudaGetErrorName (err_));                                     \
  } G_STMT_END
#endif

/* Call first in main (): exits 77 when a CUDA run cannot happen here. The
 * probe runs in a child process, so that this process has no CUDA context
 * yet: check runs tests in fork ()ed children, and a CUDA context does not
 * survive a fork. */
static inline void
cf_test_require_backend (void)
{
  int status = 0;
  pid_t pid;

  if (!cf_test_want_cuda ())
    return;
  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    _exit (cf_test_cuda_works ()? 0 : CF_TEST_SKIP);
  if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status)) {
    printf ("could not probe for a CUDA device\n");
    exit (1);
  }
  if (WEXITSTATUS (status) != 0) {
    printf ("SKIP: no working CUDA device (or a build without CUDA)\n");
    exit (WEXITSTATUS (status));
  }
}

/* How many CUDA devices work (a context can be made on each), probed in
 * a child process, as cf_test_require_backend () does; 0 without CUDA. */
static inline int
cf_test_device_count (void)
{
  int status = 0;
  pid_t pid;

  fflush (stdout);
  pid = fork ();
  if (pid == 0) {
    int ok = 0;
#ifdef HAVE_CUDA
    int n = 0;

    if (cudaGetDeviceCount (&n) != cudaSuccess)
      n = 0;
    for (int d = 0; d < n && d < 100; d++)
      if (cudaSetDevice (d) == cudaSuccess && cudaFree (NULL) == cudaSuccess)
        ok++;
#endif
    _exit (ok);
  }
  if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status))
    return 0;
  return WEXITSTATUS (status);
}

/* The seed of this run, printed once; CF_TEST_SEED overrides it. */
static inline guint32
cf_test_seed (void)
{
  static guint32 seed;
  static gboolean done;
  if (!done) {
    const char *s = g_getenv ("CF_TEST_SEED");
    seed = s ? (guint32) strtoul (s, NULL, 0) : g_random_int ();
    printf ("random seed: %u (CF_TEST_SEED=%u repeats this run)\n", seed, seed);
    fflush (stdout);
    done = TRUE;
  }
  return seed;
}

/* Every format of format.h that the kernel families take, in a for loop
 * over @f: the packed 4:2:2 formats are refused by all but packed.h, whose
 * test checks that. */
#define CF_FOR_EACH_FORMAT(f) \
  for ((f) = 0; (f) < CF_FORMAT_COUNT; (f)++) \
    if (cf_format_info (f)->packed) {} else

#endif /* CF_TEST_H */
