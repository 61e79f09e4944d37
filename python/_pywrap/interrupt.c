/* tfc._pywrap: Ctrl-C during Session.run (TF 1.x cannot interrupt a blocked run).
 *
 * A run on the main thread goes through TFC_SessionRunWithCancellation with a cancellation
 * manager of this module's. While it runs (the GIL released), SIGINT's handler is ours: it
 * notes the signal, writes a byte into a pipe (both async-signal-safe) and chains to the
 * handler it replaced (Python's, which marks the signal for the interpreter). A watcher
 * thread, started at the first such run and blocked on the pipe otherwise, cancels the
 * manager of the run in flight; the run then ends with CANCELLED within moments, and the
 * caller, back under the GIL, lets Python's handler run (PyErr_CheckSignals), which raises
 * KeyboardInterrupt. The session is left usable (a cancelled step undoes its variable writes).
 *
 * When SIGINT is ignored or has its default action (the process dies anyway), or on another
 * thread (Python delivers signals to the main thread), the run is not made interruptible. The
 * manager is reused from run to run until one is cancelled. State is the main thread's,
 * under the GIL, except `current`, which the watcher reads under `mu`. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "pywrap.h"
#include "tfc/tfc.h"

static int pipe_rd = -1, pipe_wr = -1;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static TFC_CancellationManager *current; /* the run in flight (under mu) */
static unsigned char current_gen;         /* its number, as the handler writes it (under mu) */
static volatile sig_atomic_t run_gen;     /* the run's number, for the handler */
static TFC_CancellationManager *reusable; /* the main thread's, not cancelled */
static struct sigaction replaced;         /* SIGINT's handler before the run */
static volatile sig_atomic_t interrupted;
static unsigned long main_ident;
static int ready; /* 1: pipe and watcher up; -1: failed, runs are not interruptible */

static void on_sigint(int sig, siginfo_t *info, void *uc) {
  int saved = errno;
  interrupted = 1;
  /* The run's number: a byte the watcher reads only after this run ended cancels nothing. */
  unsigned char b = (unsigned char)run_gen;
  if (write(pipe_wr, &b, 1) < 0) { /* a full pipe already holds a wake-up */
  }
  errno = saved;
  if (replaced.sa_flags & SA_SIGINFO) {
    if (replaced.sa_sigaction) replaced.sa_sigaction(sig, info, uc);
  } else if (replaced.sa_handler != SIG_DFL && replaced.sa_handler != SIG_IGN) {
    replaced.sa_handler(sig);
  }
}

static void *watcher(void *arg) {
  (void)arg;
  unsigned char buf[64];
  for (;;) {
    ssize_t n = read(pipe_rd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return NULL;
    pthread_mutex_lock(&mu);
    for (ssize_t i = 0; i < n && current; i++)
      if (buf[i] == current_gen) TFC_CancellationManagerStartCancel(current);
    pthread_mutex_unlock(&mu);
  }
}

static int start_watcher(void) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFL, O_NONBLOCK);
  pipe_rd = fds[0];
  pipe_wr = fds[1];
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old); /* the watcher takes no signals */
  pthread_t th;
  int rc = pthread_create(&th, NULL, watcher, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) return -1;
  pthread_detach(th);
  return 0;
}

int pywrap_interrupt_init(void) {
  main_ident = PyThread_get_thread_ident();
  PyObject *threading = PyImport_ImportModule("threading");
  PyObject *mt = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
  PyObject *ident = mt ? PyObject_GetAttrString(mt, "ident") : NULL;
  if (ident && PyLong_Check(ident)) main_ident = PyLong_AsUnsignedLong(ident);
  Py_XDECREF(ident);
  Py_XDECREF(mt);
  Py_XDECREF(threading);
  PyErr_Clear();
  return 0;
}

TFC_CancellationManager *pywrap_interrupt_begin(void) {
  if (PyThread_get_thread_ident() != main_ident || ready < 0) return NULL;
  if (!ready) ready = start_watcher() == 0 ? 1 : -1;
  if (ready < 0) return NULL;
  if (reusable && TFC_CancellationManagerIsCancelled(reusable)) {
    TFC_DeleteCancellationManager(reusable);
    reusable = NULL;
  }
  if (!reusable && !(reusable = TFC_NewCancellationManager())) return NULL;
  /* The run is the watcher's to cancel before the handler can fire. */
  pthread_mutex_lock(&mu);
  current = reusable;
  current_gen = (unsigned char)(current_gen + 1);
  run_gen = current_gen;
  pthread_mutex_unlock(&mu);
  struct sigaction ours;
  memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = on_sigint;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  interrupted = 0;
  if (sigaction(SIGINT, &ours, &replaced) != 0 ||
      (!(replaced.sa_flags & SA_SIGINFO) && (replaced.sa_handler == SIG_DFL || replaced.sa_handler == SIG_IGN))) {
    sigaction(SIGINT, &replaced, NULL); /* nothing to chain to: SIGINT is left alone */
    pthread_mutex_lock(&mu);
    current = NULL;
    pthread_mutex_unlock(&mu);
    return NULL;
  }
  return reusable;
}

int pywrap_interrupt_end(TFC_CancellationManager *m) {
  if (!m) return 0;
  sigaction(SIGINT, &replaced, NULL);
  pthread_mutex_lock(&mu);
  current = NULL;
  pthread_mutex_unlock(&mu);
  return interrupted != 0;
}
