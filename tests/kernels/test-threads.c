/* Tests of the CPU backend's worker pool (kernels/threads.h): every part
 * runs exactly once whatever the counts; as many threads as asked for work
 * at once, even beyond the machine's cores (parts that wait for each
 * other), and never more; nested calls, from workers too; several callers
 * at once; a fork ()ed child gets a pool that works. */
#include <sys/wait.h>
#include <unistd.h>

#include "cf-test.h"
#include "threads.h"

/* Long enough for any loaded machine, short enough to fail a hung test. */
#define RENDEZVOUS_US (20 * G_USEC_PER_SEC)

typedef struct
{
  gint *runs;                   /* [n_parts]: times each part ran */
  gint active, most;            /* parts running now, and at most */
  gint wait_for;                /* > 0: each part waits for this many */
  gint arrived;
  gint timed_out;
  gint nest;                    /* > 0: each part runs a call of its own */
} Counts;

static void
count_part (void *data, int part)
{
  Counts *c = data;
  const gint now = g_atomic_int_add (&c->active, 1) + 1;
  gint most;

  while ((most = g_atomic_int_get (&c->most)) < now
      && !g_atomic_int_compare_and_exchange (&c->most, most, now));
  g_atomic_int_inc (&c->runs[part]);
  if (c->wait_for > 0) {
    const gint64 end = g_get_monotonic_time () + RENDEZVOUS_US;

    g_atomic_int_inc (&c->arrived);
    while (g_atomic_int_get (&c->arrived) < c->wait_for) {
      if (g_get_monotonic_time () > end) {
        g_atomic_int_set (&c->timed_out, 1);
        break;
      }
      g_usleep (100);
    }
  }
  if (c->nest > 0) {
    Counts inner = { g_new0 (gint, c->nest), 0, 0, 0, 0, 0, 0 };
    int i;

    cf_parallel_for (3, c->nest, count_part, &inner);
    for (i = 0; i < c->nest; i++)
      g_assert_cmpint (inner.runs[i], ==, 1);
    g_free (inner.runs);
  }
  g_atomic_int_add (&c->active, -1);
}

/* Runs @n_parts parts on @n_threads threads; each part ran once. */
static Counts
run (int n_threads, int n_parts, int wait_for, int nest)
{
  Counts c = { g_new0 (gint, MAX (n_parts, 1)), 0, 0, wait_for, 0, 0, nest };
  int i;

  cf_parallel_for (n_threads, n_parts, count_part, &c);
  for (i = 0; i < n_parts; i++)
    g_assert_cmpint (c.runs[i], ==, 1);
  g_assert_cmpint (c.active, ==, 0);
  g_free (c.runs);
  return c;
}

static void
test_counts (void)
{
  static const int threads[] = { 1, 2, 3, 0, 7, 1000 };
  guint t;
  int parts;

  for (t = 0; t < G_N_ELEMENTS (threads); t++)
    for (parts = 0; parts < 70; parts += parts < 10 ? 1 : 13)
      g_assert_cmpint (run (threads[t], parts, 0, 0).most, <=,
          cf_parallel_threads (threads[t]));
  g_assert_cmpint (cf_parallel_cores (), >=, 1);
  g_assert_cmpint (cf_parallel_threads (0), ==, MIN (cf_parallel_cores (),
          CF_PARALLEL_MAX_THREADS));
  g_assert_cmpint (cf_parallel_threads (1000), ==, CF_PARALLEL_MAX_THREADS);
  g_assert_cmpint (cf_parallel_parts (3, 2), ==, 2);
  g_assert_cmpint (cf_parallel_parts (3, 0), ==, 1);
  g_assert_cmpint (cf_parallel_parts (5, 100), ==, 5);
}

/* The bands cover every item once, in order, sizes within one. */
static void
test_split (void)
{
  int n, parts, p;

  for (n = 0; n < 40; n++)
    for (parts = 1; parts < 12; parts++) {
      int lo = n, hi = 0;

      g_assert_cmpint (cf_parallel_split (n, parts, 0), ==, 0);
      g_assert_cmpint (cf_parallel_split (n, parts, parts), ==, n);
      for (p = 0; p < parts; p++) {
        const int size = cf_parallel_split (n, parts, p + 1) -
            cf_parallel_split (n, parts, p);

        lo = MIN (lo, size);
        hi = MAX (hi, size);
      }
      g_assert_cmpint (hi - lo, <=, 1);
    }
}

/* 3 and 5 threads at once on any machine (2 cores included): the parts
 * only finish once all of them have started. */
static void
test_concurrency (void)
{
  Counts c;

  c = run (3, 3, 3, 0);
  g_assert_cmpint (c.timed_out, ==, 0);
  g_assert_cmpint (c.most, ==, 3);
  c = run (5, 5, 5, 0);
  g_assert_cmpint (c.timed_out, ==, 0);
  g_assert_cmpint (c.most, ==, 5);
  /* 2 threads for 4 parts: never more than 2 at once, though the pool has
   * more workers by now */
  c = run (2, 4, 2, 0);
  g_assert_cmpint (c.timed_out, ==, 0);
  g_assert_cmpint (c.most, ==, 2);
}

static void
test_nested (void)
{
  run (3, 6, 0, 5);
  run (0, 4, 0, 7);
}

static gpointer
caller (gpointer data)
{
  int i;

  for (i = 0; i < 200; i++)
    run (i % 4, 1 + i % 9, 0, i % 10 == 0 ? 3 : 0);
  return NULL;
}

static void
test_concurrent_callers (void)
{
  GThread *t[6];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (t); i++)
    t[i] = g_thread_new ("caller", caller, NULL);
  for (i = 0; i < G_N_ELEMENTS (t); i++)
    g_thread_join (t[i]);
}

/* The pool is in use before the fork; the child's has no workers yet and
 * makes its own. */
static void
test_fork (void)
{
  int status = 0;
  pid_t pid;

  run (3, 3, 3, 0);
  fflush (stdout);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0) {
    Counts c = run (3, 3, 3, 0);

    _exit (c.timed_out || c.most != 3);
  }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/threads/counts", test_counts);
  g_test_add_func ("/threads/split", test_split);
  g_test_add_func ("/threads/concurrency", test_concurrency);
  g_test_add_func ("/threads/nested", test_nested);
  g_test_add_func ("/threads/concurrent-callers", test_concurrent_callers);
  g_test_add_func ("/threads/fork", test_fork);
  return g_test_run ();
}
