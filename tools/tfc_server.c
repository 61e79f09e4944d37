/*
 * tfc server — one task of a cluster in the foreground, like a Python script that builds
 * tf.train.Server(cluster, job_name, task_index) and joins it:
 *
 *   tfc server --cluster "ps=localhost:2222;worker=localhost:2223" --job worker --task 0
 *              [--port P] [--cpus N]
 *   tfc server --def SERVERDEF.pb
 *
 * The ServerDef comes from the flags (TFC_NewServerDef; --cpus N puts device_count {"CPU": N}
 * in its default_session_config) or from a file holding a serialized ServerDef. Once the
 * server serves, one line goes to stdout, flushed, for whoever waits on the task to come up:
 *
 *   tfc server: /job:worker/replica:0/task:0 listening on grpc://localhost:2223
 *
 * The task then runs until SIGTERM or SIGINT, stops its server, prints "tfc server: stopped"
 * and exits 0. The signals are caught before the startup line is printed, so a signal sent the
 * moment that line appears still stops the task cleanly. Blocking them and calling sigwait
 * would not do: libraries start threads before main (OpenBLAS's pool), and the kernel hands a
 * process signal to any thread that does not block it. The handler, on whatever thread takes
 * the signal, only writes the signal number to a pipe; the main thread reads it and stops.
 *
 * stdout is line buffered: the runtime's placement log lines reach a pipe as they are written.
 *
 * Exit codes: 0 after a clean stop; 1 when the server cannot be built, started or stopped
 * (TF's message on stderr); 2 for bad flags (usage on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/config.pb-c.h"
#include "tensorflow/tensorflow_server.pb-c.h"
#include "tfc/server.h"
#include "tfc_tool.h"

static int server_usage(const char *why) {
  if (why) fprintf(stderr, "tfc server: %s\n", why);
  fprintf(stderr,
          "usage:\n"
          "  tfc server --cluster SPEC --job NAME [--task N] [--port P] [--cpus N]\n"
          "  tfc server --def SERVERDEF.pb\n"
          "SPEC is job=host:port[,host:port...][;job=...], e.g. \"ps=localhost:2222;worker=localhost:2223\".\n");
  return 2;
}

/* A whole-string decimal int in [lo, hi]. */
static int parse_int(const char *text, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

/* Reads a whole file into a malloc'd block. NULL (with a message on stderr) on failure. */
static void *read_file(const char *path, size_t *out_len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "tfc server: %s: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      char *grown = realloc(buf, cap *= 2);
      if (!grown) free(buf);
      buf = grown;
    }
  }
  int failed = !buf || ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "tfc server: cannot read %s\n", path);
    free(buf);
    return NULL;
  }
  *out_len = len;
  return buf;
}

/* ConfigProto { device_count { "CPU": cpus } }, serialized into buf (room for 32 bytes). */
static size_t cpus_config(int cpus, uint8_t *buf) {
  Tensorflow__ConfigProto cp = TENSORFLOW__CONFIG_PROTO__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry dc = TENSORFLOW__CONFIG_PROTO__DEVICE_COUNT_ENTRY__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry *dcs[] = {&dc};
  dc.key = "CPU";
  dc.value = cpus;
  cp.n_device_count = 1;
  cp.device_count = dcs;
  return tensorflow__config_proto__pack(&cp, buf);
}

/* The write end of the stop pipe; the handler's only state. */
static int stop_fd = -1;

static void on_stop_signal(int sig) {
  int saved = errno;
  unsigned char b = (unsigned char)sig;
  if (write(stop_fd, &b, 1) < 0) {
    /* The pipe holds the first signal already; a second one changes nothing. */
  }
  errno = saved;
}

/* Catches SIGTERM and SIGINT into the stop pipe; returns its read end, or -1 (errno set). */
static int catch_stop_signals(void) {
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  stop_fd = p[1];
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0) return -1;
  return p[0];
}

/* Blocks until a stop signal arrived; returns its number. */
static int wait_stop_signal(int fd) {
  struct pollfd pf = {.fd = fd, .events = POLLIN};
  for (;;) {
    unsigned char b;
    if (read(fd, &b, 1) == 1) return b;
    if (errno != EAGAIN && errno != EINTR) return 0;
    poll(&pf, 1, -1);
  }
}

/* Serves `def` until SIGTERM/SIGINT. `job`/`task` only name the task in the startup line. */
static int serve(const void *def, size_t def_len, const char *job, int task) {
  int stop = catch_stop_signals();
  if (stop < 0) {
    fprintf(stderr, "tfc server: cannot catch SIGTERM/SIGINT: %s\n", strerror(errno));
    return 1;
  }
  signal(SIGPIPE, SIG_IGN); /* a peer that vanished is an RPC error, not a death */
  setvbuf(stdout, NULL, _IOLBF, 0);

  TF_Status *s = TF_NewStatus();
  int rc = 1;
  TF_Server *srv = TF_NewServer(def, def_len, s);
  if (TF_GetCode(s) == TF_OK) TF_ServerStart(srv, s);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "tfc server: %s\n", TF_Message(s));
    goto out;
  }
  printf("tfc server: /job:%s/replica:0/task:%d listening on %s\n", job, task, TF_ServerTarget(srv));
  fflush(stdout);

  int sig = wait_stop_signal(stop);
  TF_ServerStop(srv, s);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "tfc server: stopping after signal %d: %s\n", sig, TF_Message(s));
    goto out;
  }
  TF_DeleteServer(srv);
  srv = NULL;
  printf("tfc server: stopped\n");
  fflush(stdout);
  rc = 0;
out:
  TF_DeleteServer(srv);
  TF_DeleteStatus(s);
  return rc;
}

/* --def: the file's ServerDef as it is; job and task for the startup line come from it. */
static int serve_file(const char *path) {
  size_t len = 0;
  void *bytes = read_file(path, &len);
  if (!bytes) return 1;
  Tensorflow__ServerDef *sd = tensorflow__server_def__unpack(NULL, len, bytes);
  if (!sd) {
    fprintf(stderr, "tfc server: %s: not a serialized ServerDef\n", path);
    free(bytes);
    return 1;
  }
  int rc = serve(bytes, len, sd->job_name, sd->task_index);
  tensorflow__server_def__free_unpacked(sd, NULL);
  free(bytes);
  return rc;
}

int tfc_tool_server(int argc, char **argv) {
  const char *cluster = NULL, *job = NULL, *def = NULL;
  int task = 0, port = 0, cpus = 0, have_flags = 0;
  for (int i = 0; i < argc; i++) {
    const char *flag = argv[i];
    if (i + 1 >= argc) return server_usage(strncmp(flag, "--", 2) == 0 ? "a flag is missing its value" : NULL);
    const char *val = argv[++i];
    if (strcmp(flag, "--cluster") == 0) {
      cluster = val;
    } else if (strcmp(flag, "--job") == 0) {
      job = val;
    } else if (strcmp(flag, "--task") == 0) {
      if (parse_int(val, 0, INT_MAX, &task)) return server_usage("--task wants a task index >= 0");
    } else if (strcmp(flag, "--port") == 0) {
      if (parse_int(val, 0, 65535, &port)) return server_usage("--port wants a port in [0, 65535]");
    } else if (strcmp(flag, "--cpus") == 0) {
      if (parse_int(val, 1, 4096, &cpus)) return server_usage("--cpus wants a CPU device count in [1, 4096]");
    } else if (strcmp(flag, "--def") == 0) {
      def = val;
      continue;
    } else {
      return server_usage(NULL);
    }
    have_flags = 1;
  }
  if (def && have_flags) return server_usage("--def takes no other flags");
  if (def) return serve_file(def);
  if (!cluster || !job) return server_usage("--cluster and --job are required (or --def)");

  uint8_t cfg[32];
  size_t cfg_len = cpus ? cpus_config(cpus, cfg) : 0;
  TF_Status *s = TF_NewStatus();
  TF_Buffer *sd = TFC_NewServerDef(cluster, job, task, port, cpus ? cfg : NULL, cfg_len, s);
  int rc;
  if (!sd) {
    /* A spec the flags spelled wrong is bad usage, like any other bad flag. */
    fprintf(stderr, "tfc server: %s\n", TF_Message(s));
    rc = server_usage(NULL);
  } else {
    rc = serve(sd->data, sd->length, job, task);
  }
  TF_DeleteBuffer(sd);
  TF_DeleteStatus(s);
  return rc;
}
