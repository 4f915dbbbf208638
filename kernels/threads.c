/* The CPU backend's worker threads (see threads.h).
 *
 * A call is a job on the caller's stack: its parts are taken one at a time,
 * under one mutex, by the caller and by workers. Jobs with parts left wait
 * in a FIFO; an idle worker takes a part of the oldest job that still
 * accepts a worker (a job asking for T threads accepts T - 1), runs it
 * unlocked, and counts it done. The caller takes its own job's parts until
 * none is left, never another job's (so a call never waits on someone
 * else's work), then waits for the parts workers hold; the job's memory is
 * touched under the mutex only, and the last part done wakes the caller.
 *
 * Workers are made on demand, as many as the largest call asked for (less
 * one, the caller), detached, and kept for the life of the process, idle
 * on a condition variable between jobs; they block every signal, so that
 * signals still go to the application's own threads. A worker that cannot
 * be made leaves the pool as it is: calls then run with fewer threads, or
 * on the caller alone, with the same result. After fork () the child
 * starts with an empty pool (its parent's workers do not exist there).
 */
#define _GNU_SOURCE
#include "threads.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

typedef struct Job Job;
struct Job
{
  void (*fn) (void *data, int part);
  void *data;
  int n_parts;
  int next;                     /* the next part to take */
  int left;                     /* parts not done */
  int helpers;                  /* workers on it now */
  int max_helpers;              /* threads asked for, less the caller */
  Job *link;                    /* the next job in the queue */
};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
/* under pool_lock: the jobs with parts left, oldest first */
static Job *queue_head, *queue_tail;
static int n_workers, n_idle;
static int cannot_grow;         /* a worker could not be made: stop trying */
static int n_cores = 1;

/* The oldest job a worker may help with, or NULL; pool_lock held. */
static Job *
job_for_worker (void)
{
  Job *job;

  for (job = queue_head; job; job = job->link)
    if (job->helpers < job->max_helpers)
      return job;
  return NULL;
}

/* Takes the next part of @job, which leaves the queue with its last part;
 * pool_lock held. */
static int
take_part (Job * job)
{
  const int part = job->next++;
  Job **at;

  if (job->next == job->n_parts) {
    Job *prev = NULL;

    for (at = &queue_head; *at != job; at = &(*at)->link)
      prev = *at;
    *at = job->link;
    if (queue_tail == job)
      queue_tail = prev;
  }
  return part;
}

/* Runs @part of @job unlocked (a worker's when @helper) and counts it
 * done; pool_lock held on entry and on return. @job may be gone once the
 * count reaches 0 (its caller returns): nothing touches it after. */
static void
run_part (Job * job, int part, int helper)
{
  job->helpers += helper;
  pthread_mutex_unlock (&pool_lock);
  job->fn (job->data, part);
  pthread_mutex_lock (&pool_lock);
  job->helpers -= helper;
  if (--job->left == 0)
    pthread_cond_broadcast (&pool_done);
}

static void *
worker_main (void *unused)
{
  pthread_mutex_lock (&pool_lock);
  for (;;) {
    Job *job = job_for_worker ();

    if (job) {
      run_part (job, take_part (job), 1);
    } else {
      n_idle++;
      pthread_cond_wait (&pool_work, &pool_lock);
      n_idle--;
    }
  }
  return NULL;
}

/* Makes workers until there are @want; pool_lock held (a new worker waits
 * for it). Returns how many there are. */
static int
grow_pool (int want)
{
  pthread_attr_t attr;
  sigset_t all, old;
  int masked;

  if (n_workers >= want || cannot_grow)
    return n_workers;
  if (pthread_attr_init (&attr) != 0) {
    cannot_grow = 1;
    return n_workers;
  }
  /* a new thread starts with its creator's signal mask: every signal
   * blocked, from its first instruction */
  sigfillset (&all);
  masked = pthread_sigmask (SIG_SETMASK, &all, &old) == 0;
  if (pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED) != 0)
    cannot_grow = 1;
  while (!cannot_grow && n_workers < want) {
    pthread_t thread;

    if (pthread_create (&thread, &attr, worker_main, NULL) != 0)
      cannot_grow = 1;
    else
      n_workers++;
  }
  if (masked)
    pthread_sigmask (SIG_SETMASK, &old, NULL);
  pthread_attr_destroy (&attr);
  return n_workers;
}

/* fork (): the child has only the forking thread, so none of the workers;
 * the lock is held across the fork so that the child's copy is consistent. */
static void
before_fork (void)
{
  pthread_mutex_lock (&pool_lock);
}

static void
after_fork_parent (void)
{
  pthread_mutex_unlock (&pool_lock);
}

static void
after_fork_child (void)
{
  static const pthread_cond_t fresh = PTHREAD_COND_INITIALIZER;

  queue_head = queue_tail = NULL;
  n_workers = n_idle = 0;
  cannot_grow = 0;
  pool_work = fresh;
  pool_done = fresh;
  pthread_mutex_unlock (&pool_lock);
}

static void
pool_init (void)
{
  cpu_set_t set;
  long online = sysconf (_SC_NPROCESSORS_ONLN);

  if (sched_getaffinity (0, sizeof (set), &set) == 0 && CPU_COUNT (&set) > 0)
    n_cores = CPU_COUNT (&set);
  else if (online > 0)
    n_cores = (int) online;
  /* without the handlers a child could inherit a pool it cannot use:
   * never make workers then */
  if (pthread_atfork (before_fork, after_fork_parent, after_fork_child) != 0)
    cannot_grow = 1;
}

int
cf_parallel_cores (void)
{
  if (pthread_once (&pool_once, pool_init) != 0)
    return 1;
  return n_cores;
}

int
cf_parallel_threads (int n_threads)
{
  if (n_threads <= 0)
    n_threads = cf_parallel_cores ();
  return n_threads > CF_PARALLEL_MAX_THREADS ? CF_PARALLEL_MAX_THREADS :
      n_threads;
}

void
cf_parallel_for (int n_threads, int n_parts,
    void (*fn) (void *data, int part), void *data)
{
  const int threads = cf_parallel_threads (n_threads);
  Job job = { fn, data, n_parts, 0, n_parts, 0, threads - 1, NULL };
  int part, wake;

  if (n_parts < 1)
    return;
  if (threads < 2 || n_parts < 2 || pthread_once (&pool_once, pool_init) != 0
      || pthread_mutex_lock (&pool_lock) != 0) {
    for (part = 0; part < n_parts; part++)
      fn (data, part);
    return;
  }
  if (grow_pool (threads - 1) == 0) {
    pthread_mutex_unlock (&pool_lock);
    for (part = 0; part < n_parts; part++)
      fn (data, part);
    return;
  }

  if (queue_tail)
    queue_tail->link = &job;
  else
    queue_head = &job;
  queue_tail = &job;
  /* the idle workers this job can use (busy ones look for work when done) */
  wake = n_parts - 1 < job.max_helpers ? n_parts - 1 : job.max_helpers;
  wake = wake < n_idle ? wake : n_idle;
  if (wake == n_idle)
    pthread_cond_broadcast (&pool_work);
  else
    while (wake-- > 0)
      pthread_cond_signal (&pool_work);

  while (job.next < job.n_parts)
    run_part (&job, take_part (&job), 0);
  while (job.left > 0)
    pthread_cond_wait (&pool_done, &pool_lock);
  pthread_mutex_unlock (&pool_lock);
}
