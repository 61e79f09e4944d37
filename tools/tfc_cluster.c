/*
 * tfc cluster — a supervisor for the tasks of a cluster that live on this host: it starts
 * them as processes, restarts those that die and stops them all on SIGTERM or SIGINT; or,
 * with --k8s, the Kubernetes manifests that do the same on a Kubernetes cluster
 * (tfc_cluster_k8s.c).
 *
 *   tfc cluster --cluster SPEC [--tasks LIST | --host HOST] [--trainer-jobs LIST] [--cpus N]
 *               [--backoff-ms MS] [--max-backoff-ms MS] [--healthy-ms MS] [--max-restarts N]
 *               [--grace-ms MS] [-- TRAINER ARGS...]
 *   tfc cluster --k8s SPEC [--name NAME] [--image IMAGE] [--trainer-jobs LIST] [--cpus N]
 *               [--max-restarts N] [-- TRAINER ARGS...]
 *
 * Which tasks. By default the tasks whose host is this machine: localhost, any 127.x.x.x or
 * ::1 address, 0.0.0.0, this host's name, or a name or address of one of its interfaces.
 * --host HOST takes the tasks whose host part is HOST as written (one supervisor per
 * loopback address makes 127.0.0.2 and 127.0.0.3 separate hosts); --tasks "ps:0,worker"
 * names them (JOB:INDEX, or JOB for all its tasks).
 *
 * What runs. A task of a job in --trainer-jobs (default "chief,worker") runs the trainer when
 * one is given after "--": the command once per such task, its arguments with {job}, {task},
 * {cluster}, {address} and {target} replaced (tfc_cluster.h), and TF_CONFIG set in its
 * environment as TF's cluster resolvers read it. Such a task runs the trainer only: TF 1.x
 * between-graph programs build their own tf.train.Server for their task, so the trainer is
 * the task's server. Every other task runs `tfc server --cluster SPEC --job J --task N`, this
 * same binary (/proc/self/exe).
 *
 * Restarts. A server that exits for any reason, and a trainer that exits non-zero or is killed
 * by a signal, is started again after a delay: --backoff-ms (500) doubled at each failure in
 * a row, at most --max-backoff-ms (30000). A task that stayed up --healthy-ms (60000) before
 * it died starts the count again. After --max-restarts (10) restarts in a row the next death
 * stops the cluster: exit code 1. A trainer that exits 0 is done; when every trainer is done,
 * the servers are stopped and the supervisor exits 0. Trainers of job "ps" do not count there
 * (TF programs' ps tasks serve in server.join() until they are killed): they are stopped with
 * the servers, unless every trainer is a ps one. Without trainers it runs until stopped.
 *
 * Stopping. SIGTERM or SIGINT sends SIGTERM to every task; those still running --grace-ms
 * (10000) later get SIGKILL; a second signal kills at once. Then exit 0. Each task runs in a
 * process group of its own (signals reach a trainer script's children too) and asks the
 * kernel to SIGKILL it when the supervisor dies (PR_SET_PDEATHSIG), so a supervisor killed
 * with SIGKILL leaves no task behind.
 *
 * Events. One line each on stderr, as a log to read and to grep:
 *   tfc cluster: /job:ps/replica:0/task:0 server started (pid 123)
 *   tfc cluster: /job:worker/replica:0/task:1 trainer started (pid 124): python3 train.py --task 1
 *   tfc cluster: /job:worker/replica:0/task:1 (pid 124) killed by signal 9 (SIGKILL); restart 1 of 10 in 500 ms
 *   tfc cluster: /job:worker/replica:0/task:1 (pid 125) exited with status 3; restart 2 of 10 in 1000 ms
 *   tfc cluster: /job:worker/replica:0/task:1 (pid 126) finished (exit status 0)
 *   tfc cluster: /job:worker/replica:0/task:1 (pid 126) exited with status 3; no restarts left (--max-restarts 2)
 *   tfc cluster: /job:ps/replica:0/task:0 (pid 123) stopped (exit status 0)
 * The tasks' own output goes to the supervisor's stdout and stderr as it is.
 *
 * Signals reach a handler that only writes the signal number to a pipe (any thread may take
 * them: libraries start threads before main); the loop below polls that pipe with a timeout
 * set by the next restart or kill deadline, and reaps children with waitpid(WNOHANG).
 *
 * Exit codes: 0 after a clean stop or when every trainer finished; 1 when a task ran out of
 * restarts or could not be started; 2 for a bad command line.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/status.h"
#include "tensorflow/tensorflow_server.pb-c.h"
#include "tfc/server.h"
#include "tfc_cluster.h"
#include "tfc_tool.h"

static const char kClusterUsage[] =
    "usage:\n"
    "  tfc cluster --cluster SPEC [--tasks LIST | --host HOST] [--trainer-jobs LIST] [--cpus N]\n"
    "              [--backoff-ms MS] [--max-backoff-ms MS] [--healthy-ms MS] [--max-restarts N]\n"
    "              [--grace-ms MS] [-- TRAINER ARGS...]\n"
    "  tfc cluster --k8s SPEC [--name NAME] [--image IMAGE] [--trainer-jobs LIST] [--cpus N]\n"
    "              [--max-restarts N] [-- TRAINER ARGS...]\n"
    "SPEC is job=host:port[,host:port...][;job=...], as tfc server takes it. LIST is JOB:INDEX or JOB,\n"
    "comma-separated. TRAINER runs once per task of the trainer jobs (default chief,worker) instead\n"
    "of a server, with {job} {task} {cluster} {address} {target} replaced. docs/CLUSTERS.md has more.\n";

/* A bad command line: why (if given) and the usage on stderr; exit code 2. */
static int cluster_usage(const char *why) {
  if (why) fprintf(stderr, "tfc cluster: %s\n", why);
  fputs(kClusterUsage, stderr);
  return 2;
}

/* ---------------- the spec (tfc_cluster.h) ---------------- */

int tfc_cluster_spec_parse(const char *text, const char *flag, tfc_cluster_spec *out) {
  memset(out, 0, sizeof *out);
  /* TFC_NewServerDef wants a job of the cluster: the first entry's name does (an entry
   * without '=' fails the parse before the job is looked up). */
  size_t n = strcspn(text, "=;");
  char *job0 = strndup(text, n);
  if (!job0) return -1;
  TF_Status *s = TF_NewStatus();
  TF_Buffer *def = TFC_NewServerDef(text, job0, 0, 0, NULL, 0, s);
  free(job0);
  if (!def) {
    fprintf(stderr, "tfc cluster: %s: %s: %s\n", tfc_code_name(TF_GetCode(s)), flag, TF_Message(s));
    TF_DeleteStatus(s);
    return -1;
  }
  TF_DeleteStatus(s);
  Tensorflow__ServerDef *sd = tensorflow__server_def__unpack(NULL, def->length, def->data);
  TF_DeleteBuffer(def);
  int rc = -1;
  if (!sd || !sd->cluster || !(out->jobs = calloc(sd->cluster->n_job, sizeof *out->jobs))) goto out;
  for (size_t j = 0; j < sd->cluster->n_job; j++) {
    const Tensorflow__JobDef *jd = sd->cluster->job[j];
    tfc_cluster_job *jb = &out->jobs[out->n_jobs++];
    if (!(jb->name = strdup(jd->name)) || !(jb->addresses = calloc(jd->n_tasks, sizeof *jb->addresses))) goto out;
    jb->n_tasks = (int)jd->n_tasks;
    for (size_t t = 0; t < jd->n_tasks; t++) {
      uint32_t k = jd->tasks[t]->key; /* the map's entries come in task order, but say so */
      if (k >= jd->n_tasks || jb->addresses[k] || !(jb->addresses[k] = strdup(jd->tasks[t]->value))) goto out;
    }
  }
  rc = 0;
out:
  if (rc) fprintf(stderr, "tfc cluster: INTERNAL: %s: cannot read back the parsed cluster\n", flag);
  if (sd) tensorflow__server_def__free_unpacked(sd, NULL);
  return rc;
}

void tfc_cluster_spec_fini(tfc_cluster_spec *sp) {
  for (int j = 0; j < sp->n_jobs; j++) {
    for (int t = 0; sp->jobs[j].addresses && t < sp->jobs[j].n_tasks; t++) free(sp->jobs[j].addresses[t]);
    free(sp->jobs[j].addresses);
    free(sp->jobs[j].name);
  }
  free(sp->jobs);
  memset(sp, 0, sizeof *sp);
}

const tfc_cluster_job *tfc_cluster_spec_job(const tfc_cluster_spec *sp, const char *name) {
  for (int j = 0; j < sp->n_jobs; j++)
    if (strcmp(sp->jobs[j].name, name) == 0) return &sp->jobs[j];
  return NULL;
}

int tfc_cluster_name_in_list(const char *job, const char *list) {
  size_t n = strlen(job);
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, job, n) == 0) return 1;
    p += len + (p[len] == ',');
  }
  return 0;
}

const char *const tfc_cluster_placeholders[TFC_CLUSTER_PH_COUNT] = {"job", "task", "cluster", "address", "target"};

char *tfc_cluster_expand(const char *tmpl, const char *const values[TFC_CLUSTER_PH_COUNT],
                         const char *(*escape)(char c)) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  for (const char *p = tmpl; *p;) {
    int ph = -1;
    if (*p == '{')
      for (int i = 0; i < TFC_CLUSTER_PH_COUNT && ph < 0; i++) {
        size_t n = strlen(tfc_cluster_placeholders[i]);
        if (strncmp(p + 1, tfc_cluster_placeholders[i], n) == 0 && p[1 + n] == '}') ph = i;
      }
    if (ph >= 0) {
      fputs(values[ph], f);
      p += strlen(tfc_cluster_placeholders[ph]) + 2;
      continue;
    }
    const char *esc = escape ? escape(*p) : NULL;
    if (esc) fputs(esc, f);
    else fputc(*p, f);
    p++;
  }
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* ---------------- which tasks live here ---------------- */

/* The host part of host:port, without IPv6 brackets, into out (cap bytes). */
static void address_host(const char *address, char *out, size_t cap) {
  const char *colon = strrchr(address, ':');
  size_t n = colon ? (size_t)(colon - address) : strlen(address);
  if (n >= 2 && address[0] == '[' && address[n - 1] == ']') {
    address++;
    n -= 2;
  }
  if (n >= cap) n = cap - 1;
  memcpy(out, address, n);
  out[n] = '\0';
}

/* Whether two socket addresses hold the same IP address. */
static int same_ip(const struct sockaddr *a, const struct sockaddr *b) {
  if (!a || !b || a->sa_family != b->sa_family) return 0;
  if (a->sa_family == AF_INET)
    return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
  if (a->sa_family == AF_INET6)
    return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
  return 0;
}

/* Whether `host` names this machine: loopback, the wildcard, this host's name (short or
 * full), or a name or literal that resolves to an address of one of its interfaces. */
static int host_is_local(const char *host, const struct ifaddrs *ifs) {
  struct in_addr v4;
  if (strcasecmp(host, "localhost") == 0 || strcmp(host, "::1") == 0 || strcmp(host, "0.0.0.0") == 0) return 1;
  if (inet_pton(AF_INET, host, &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127) return 1;
  char me[256];
  if (gethostname(me, sizeof me) == 0) {
    me[sizeof me - 1] = '\0';
    size_t hn = strcspn(host, "."), mn = strcspn(me, ".");
    if (strcasecmp(host, me) == 0 || (hn == mn && strncasecmp(host, me, hn) == 0 && (!host[hn] || !me[mn])))
      return 1;
  }
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host, NULL, &hints, &res) != 0) return 0;
  int local = 0;
  for (const struct addrinfo *ai = res; ai && !local; ai = ai->ai_next)
    for (const struct ifaddrs *i = ifs; i && !local; i = i->ifa_next) local = same_ip(ai->ai_addr, i->ifa_addr);
  freeaddrinfo(res);
  return local;
}

/* ---------------- the tasks ---------------- */

typedef struct task {
  const char *job;     /* borrowed from the spec */
  const char *address; /* borrowed from the spec */
  int index;
  int trainer;      /* runs the trainer, not a server */
  char name[160];   /* /job:J/replica:0/task:N */
  char **argv;      /* the command (NULL-terminated, owned) */
  char *config;     /* "TF_CONFIG=..." for a trainer (owned) */
  char **envp;      /* a trainer's environment: this process's, TF_CONFIG replaced (the array owned) */
  pid_t pid;        /* 0 when not running */
  int64_t up_ms;    /* when it was started */
  int64_t start_at; /* when to start it (again); -1: not to be started */
  int in_a_row;     /* restarts since it last stayed up --healthy-ms */
  int done;         /* a trainer that exited 0 */
} task;

typedef struct options {
  const char *trainer_jobs;
  int backoff_ms, max_backoff_ms, healthy_ms, max_restarts, grace_ms, cpus;
} options;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One event line on stderr, written at once so that lines from tasks do not cut into it. */
static void event(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void event(const char *fmt, ...) {
  char line[4096];
  int n = snprintf(line, sizeof line, "tfc cluster: ");
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  va_end(ap);
  n += m < 0 ? 0 : (m >= (int)sizeof line - n - 1 ? (int)sizeof line - n - 2 : m);
  line[n++] = '\n';
  if (write(STDERR_FILENO, line, (size_t)n) < 0) {
    /* stderr is gone: there is nobody to tell. */
  }
}

/* "exited with status 3" or "killed by signal 9 (SIGKILL)" into out. */
static void describe_status(int st, char *out, size_t cap) {
  if (WIFEXITED(st)) {
    snprintf(out, cap, "exited with status %d", WEXITSTATUS(st));
  } else if (WIFSIGNALED(st)) {
    const char *abbrev = sigabbrev_np(WTERMSIG(st));
    snprintf(out, cap, "killed by signal %d (SIG%s)%s", WTERMSIG(st), abbrev ? abbrev : "?",
             WCOREDUMP(st) ? ", core dumped" : "");
  } else {
    snprintf(out, cap, "ended with wait status 0x%x", st);
  }
}

static char *xstrdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xstrdup_printf(const char *fmt, ...) {
  char *out = NULL;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&out, fmt, ap) < 0) out = NULL;
  va_end(ap);
  return out;
}

/* "TF_CONFIG=" and the JSON for task (job, index): {"cluster": {...}, "task": {"type": ...,
 * "index": ...}}. Job names and addresses passed the spec's checks: none needs escaping. */
static char *tf_config(const tfc_cluster_spec *sp, const char *job, int index) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  fputs("TF_CONFIG={\"cluster\": {", f);
  for (int j = 0; j < sp->n_jobs; j++) {
    fprintf(f, "%s\"%s\": [", j ? ", " : "", sp->jobs[j].name);
    for (int t = 0; t < sp->jobs[j].n_tasks; t++) fprintf(f, "%s\"%s\"", t ? ", " : "", sp->jobs[j].addresses[t]);
    fputc(']', f);
  }
  fprintf(f, "}, \"task\": {\"type\": \"%s\", \"index\": %d}}", job, index);
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* Builds t->argv: the server command, or the trainer template expanded for the task. */
static int task_command(task *t, const char *spec_text, const tfc_cluster_spec *sp, char **trainer, int n_trainer,
                        int cpus) {
  if (!t->trainer) {
    char idx[16], ncpu[16];
    snprintf(idx, sizeof idx, "%d", t->index);
    snprintf(ncpu, sizeof ncpu, "%d", cpus);
    const char *words[] = {"tfc", "server", "--cluster", spec_text, "--job", t->job, "--task", idx, "--cpus", ncpu};
    int n = cpus ? 10 : 8;
    if (!(t->argv = calloc((size_t)n + 1, sizeof *t->argv))) return -1;
    for (int i = 0; i < n; i++)
      if (!(t->argv[i] = strdup(words[i]))) return -1;
    return 0;
  }
  char idx[16];
  snprintf(idx, sizeof idx, "%d", t->index);
  char *target = xstrdup_printf("grpc://%s", t->address);
  if (!target) return -1;
  const char *values[TFC_CLUSTER_PH_COUNT] = {t->job, idx, spec_text, t->address, target};
  int rc = 0;
  if (!(t->argv = calloc((size_t)n_trainer + 1, sizeof *t->argv))) rc = -1;
  for (int i = 0; !rc && i < n_trainer; i++)
    if (!(t->argv[i] = tfc_cluster_expand(trainer[i], values, NULL))) rc = -1;
  free(target);
  if (!rc && !(t->config = tf_config(sp, t->job, t->index))) rc = -1;
  /* The environment is built here, not in the child: between fork and exec only
   * async-signal-safe calls are allowed, and setenv allocates. */
  size_t n_env = 0;
  while (environ[n_env]) n_env++;
  if (!rc && !(t->envp = calloc(n_env + 2, sizeof *t->envp))) rc = -1;
  for (size_t i = 0, k = 0; !rc && i <= n_env; i++) {
    if (i < n_env && strncmp(environ[i], "TF_CONFIG=", 10) == 0) continue;
    t->envp[k++] = i < n_env ? environ[i] : t->config;
  }
  return rc;
}

/* Selects the tasks to run (a --tasks list, a --host, or the local ones) into *out. Returns
 * the count, or -1 after printing why. */
static int select_tasks(const tfc_cluster_spec *sp, const char *list, const char *host, task **out) {
  int total = 0;
  for (int j = 0; j < sp->n_jobs; j++) total += sp->jobs[j].n_tasks;
  task *ts = calloc((size_t)total, sizeof *ts);
  char *picked = calloc((size_t)total, 1);
  if (!ts || !picked) {
    free(ts);
    free(picked);
    fprintf(stderr, "tfc cluster: RESOURCE_EXHAUSTED: out of memory\n");
    return -1;
  }
  /* Flat index of (job j, task t): the tasks of the jobs before j, plus t. */
  if (list) {
    for (const char *p = list; *p;) {
      size_t len = strcspn(p, ",");
      char item[256];
      snprintf(item, sizeof item, "%.*s", (int)(len < 255 ? len : 255), p);
      p += len + (p[len] == ',');
      char *colon = strchr(item, ':');
      if (colon) *colon = '\0';
      int base = 0, jfound = -1;
      for (int j = 0; j < sp->n_jobs && jfound < 0; j++) {
        if (strcmp(sp->jobs[j].name, item) == 0) jfound = j;
        else base += sp->jobs[j].n_tasks;
      }
      char *end = NULL;
      long k = colon ? strtol(colon + 1, &end, 10) : 0;
      if (jfound < 0 || (colon && (!colon[1] || *end || k < 0 || k >= sp->jobs[jfound].n_tasks))) {
        if (jfound < 0)
          fprintf(stderr, "tfc cluster: INVALID_ARGUMENT: --tasks: job '%s' is not in the cluster\n", item);
        else
          fprintf(stderr, "tfc cluster: INVALID_ARGUMENT: --tasks: '%s:%s' is not a task of job '%s' (tasks 0 to %d)\n",
                  item, colon + 1, item, sp->jobs[jfound].n_tasks - 1);
        free(ts);
        free(picked);
        return -1;
      }
      for (int t = 0; t < sp->jobs[jfound].n_tasks; t++)
        if (!colon || t == k) picked[base + t] = 1;
    }
  } else {
    struct ifaddrs *ifs = NULL;
    if (!host && getifaddrs(&ifs) != 0) ifs = NULL;
    for (int j = 0, i = 0; j < sp->n_jobs; j++)
      for (int t = 0; t < sp->jobs[j].n_tasks; t++, i++) {
        char h[256];
        address_host(sp->jobs[j].addresses[t], h, sizeof h);
        picked[i] = host ? strcasecmp(h, host) == 0 : host_is_local(h, ifs);
      }
    if (ifs) freeifaddrs(ifs);
  }
  int n = 0;
  for (int j = 0, i = 0; j < sp->n_jobs; j++)
    for (int t = 0; t < sp->jobs[j].n_tasks; t++, i++) {
      if (!picked[i]) continue;
      ts[n].job = sp->jobs[j].name;
      ts[n].address = sp->jobs[j].addresses[t];
      ts[n].index = t;
      snprintf(ts[n].name, sizeof ts[n].name, "/job:%s/replica:0/task:%d", sp->jobs[j].name, t);
      n++;
    }
  free(picked);
  if (n == 0) {
    char me[256] = "this host";
    if (!host && gethostname(me, sizeof me) != 0) snprintf(me, sizeof me, "this host");
    me[sizeof me - 1] = '\0';
    fprintf(stderr, "tfc cluster: NOT_FOUND: no task of the cluster %s %s%s\n",
            list ? "is named by --tasks" : "lives on", list ? "" : host ? host : me,
            list || host ? "" : " (name them with --tasks or --host)");
    free(ts);
    return -1;
  }
  *out = ts;
  return n;
}

/* ---------------- processes ---------------- */

/* The write end of the event pipe; the signal handler's only state. */
static int signal_fd = -1;

static void on_signal(int sig) {
  int saved = errno;
  unsigned char b = (unsigned char)sig;
  if (write(signal_fd, &b, 1) < 0) {
    /* A full pipe already holds enough wake-ups. */
  }
  errno = saved;
}

/* Catches SIGCHLD, SIGTERM and SIGINT into a pipe; returns its read end, or -1. */
static int catch_signals(void) {
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  signal_fd = p[1];
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  if (sigaction(SIGCHLD, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0)
    return -1;
  signal(SIGPIPE, SIG_IGN);
  return p[0];
}

/* Starts t. Returns 0, or -1 after logging why it cannot run (exec failed: no restart helps). */
static int task_start(task *t) {
  int errp[2];
  if (pipe2(errp, O_CLOEXEC) != 0) {
    event("%s cannot be started: pipe: %s", t->name, strerror(errno));
    return -1;
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(errp[0]);
    close(errp[1]);
    event("%s cannot be started: fork: %s", t->name, strerror(e));
    return -1;
  }
  if (pid == 0) {
    /* The child: only async-signal-safe calls until exec. */
    close(errp[0]);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127); /* the supervisor died before the line above */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (t->trainer) execvpe(t->argv[0], t->argv, t->envp);
    else execv("/proc/self/exe", t->argv);
    int e = errno;
    if (write(errp[1], &e, sizeof e) < 0) {
      /* The parent then sees exit status 127 alone. */
    }
    _exit(127);
  }
  close(errp[1]);
  setpgid(pid, pid); /* also here: a signal sent before the child ran setpgid must reach it */
  int e = 0;
  ssize_t got;
  do {
    got = read(errp[0], &e, sizeof e);
  } while (got < 0 && errno == EINTR);
  close(errp[0]);
  if (got == (ssize_t)sizeof e) {
    waitpid(pid, NULL, 0);
    event("%s cannot run '%s': %s", t->name, t->argv[0], strerror(e));
    return -1;
  }
  t->pid = pid;
  t->up_ms = now_ms();
  t->start_at = -1;
  if (t->trainer) {
    char cmd[2048];
    size_t n = 0;
    cmd[0] = '\0';
    for (int i = 0; t->argv[i] && n < sizeof cmd - 1; i++)
      n += (size_t)snprintf(cmd + n, sizeof cmd - n, "%s%s", i ? " " : "", t->argv[i]);
    event("%s trainer started (pid %d): %s", t->name, (int)pid, cmd);
  } else {
    event("%s server started (pid %d)", t->name, (int)pid);
  }
  return 0;
}

/* Sends sig to t's process group (and to t itself, should the group not exist yet). */
static void task_signal(const task *t, int sig) {
  if (t->pid <= 0) return;
  if (kill(-t->pid, sig) != 0) kill(t->pid, sig);
}

typedef struct supervisor {
  task *tasks;
  int n_tasks;
  options opt;
  int stopping;        /* the tasks were sent SIGTERM */
  int64_t kill_at;     /* when the stragglers get SIGKILL (while stopping) */
  int killed;          /* they did */
  int rc;              /* the exit code once stopped */
  int n_trainers;
} supervisor;

static int running(const supervisor *sv) {
  int n = 0;
  for (int i = 0; i < sv->n_tasks; i++) n += sv->tasks[i].pid > 0;
  return n;
}

/* Sends SIGTERM to every task and cancels pending restarts; rc becomes the exit code. */
static void stop_all(supervisor *sv, int rc) {
  if (sv->stopping) return;
  sv->stopping = 1;
  sv->rc = rc;
  sv->kill_at = now_ms() + sv->opt.grace_ms;
  for (int i = 0; i < sv->n_tasks; i++) {
    sv->tasks[i].start_at = -1;
    task_signal(&sv->tasks[i], SIGTERM);
  }
}

/* SIGKILL for the tasks still running: the grace period is over (again: a second signal). */
static void kill_all(supervisor *sv, int again) {
  for (int i = 0; i < sv->n_tasks; i++) {
    task *t = &sv->tasks[i];
    if (t->pid <= 0) continue;
    if (again) event("%s (pid %d) still running at a second stop signal: sending SIGKILL", t->name, (int)t->pid);
    else event("%s (pid %d) still running %d ms after SIGTERM: sending SIGKILL", t->name, (int)t->pid, sv->opt.grace_ms);
    task_signal(t, SIGKILL);
  }
  sv->killed = 1;
}

/* Whether the cluster waits for this task to finish: a trainer, but not a ps task's when
 * trainers of other jobs run here (a ps program serves until it is stopped). */
static int ends_cluster(const supervisor *sv, const task *t) {
  if (!t->trainer) return 0;
  if (strcmp(t->job, "ps") != 0) return 1;
  for (int i = 0; i < sv->n_tasks; i++)
    if (sv->tasks[i].trainer && strcmp(sv->tasks[i].job, "ps") != 0) return 0;
  return 1;
}

/* A task ended with wait status st: log it and decide what comes next. */
static void task_ended(supervisor *sv, task *t, int st) {
  char how[128];
  describe_status(st, how, sizeof how);
  int pid = (int)t->pid;
  t->pid = 0;
  if (sv->stopping) {
    event("%s (pid %d) stopped (%s)", t->name, pid, WIFEXITED(st) ? (WEXITSTATUS(st) ? how : "exit status 0") : how);
    return;
  }
  if (t->trainer && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
    event("%s (pid %d) finished (exit status 0)", t->name, pid);
    t->done = 1;
    int left = 0;
    for (int i = 0; i < sv->n_tasks; i++) left += ends_cluster(sv, &sv->tasks[i]) && !sv->tasks[i].done;
    if (left == 0) {
      int n = 0;
      for (int i = 0; i < sv->n_tasks; i++) n += ends_cluster(sv, &sv->tasks[i]);
      if (n == 1) event("the trainer finished: stopping the cluster");
      else event("all %d trainers finished: stopping the cluster", n);
      stop_all(sv, 0);
    }
    return;
  }
  int64_t now = now_ms();
  if (now - t->up_ms >= sv->opt.healthy_ms) t->in_a_row = 0;
  if (t->in_a_row >= sv->opt.max_restarts) {
    event("%s (pid %d) %s; no restarts left (--max-restarts %d): stopping the cluster", t->name, pid, how,
          sv->opt.max_restarts);
    fprintf(stderr, "tfc cluster: UNAVAILABLE: %s failed %d time%s in a row: the cluster is stopped\n", t->name,
            t->in_a_row + 1, t->in_a_row ? "s" : "");
    stop_all(sv, 1);
    return;
  }
  int64_t delay = sv->opt.backoff_ms;
  for (int i = 0; i < t->in_a_row && delay < sv->opt.max_backoff_ms; i++) delay *= 2;
  if (delay > sv->opt.max_backoff_ms) delay = sv->opt.max_backoff_ms;
  t->in_a_row++;
  t->start_at = now + delay;
  event("%s (pid %d) %s; restart %d of %d in %lld ms", t->name, pid, how, t->in_a_row, sv->opt.max_restarts,
        (long long)delay);
}

/* Reaps every ended child. Each is first looked at without reaping (WNOWAIT), so that its
 * process group is SIGKILLed while the zombie still holds the group's id: a trainer script's
 * leftover children go with it, and no other process can have taken that id yet. */
static void reap(supervisor *sv) {
  for (;;) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
    pid_t pid = info.si_pid;
    kill(-pid, SIGKILL);
    int st;
    if (waitpid(pid, &st, 0) != pid) return;
    for (int i = 0; i < sv->n_tasks; i++)
      if (sv->tasks[i].pid == pid) task_ended(sv, &sv->tasks[i], st);
  }
}

/* The loop: start what is due, wait for a signal or the next deadline, reap. */
static int supervise(supervisor *sv, int sigfd) {
  for (;;) {
    int64_t now = now_ms();
    for (int i = 0; i < sv->n_tasks && !sv->stopping; i++) {
      task *t = &sv->tasks[i];
      if (t->pid == 0 && !t->done && t->start_at >= 0 && now >= t->start_at && task_start(t) != 0) stop_all(sv, 1);
    }
    if (sv->stopping && running(sv) == 0) break;
    if (sv->stopping && !sv->killed && now >= sv->kill_at) kill_all(sv, 0);
    int64_t wake = -1;
    for (int i = 0; i < sv->n_tasks && !sv->stopping; i++) {
      const task *t = &sv->tasks[i];
      if (t->pid == 0 && !t->done && t->start_at >= 0 && (wake < 0 || t->start_at < wake)) wake = t->start_at;
    }
    if (sv->stopping && !sv->killed) wake = sv->kill_at;
    int timeout = wake < 0 ? -1 : wake <= now ? 0 : (int)(wake - now > INT_MAX ? INT_MAX : wake - now);
    struct pollfd pf = {.fd = sigfd, .events = POLLIN};
    if (poll(&pf, 1, timeout) < 0 && errno != EINTR) {
      event("poll: %s: stopping the cluster", strerror(errno));
      stop_all(sv, 1);
    }
    unsigned char sigs[64];
    ssize_t n;
    while ((n = read(sigfd, sigs, sizeof sigs)) > 0)
      for (ssize_t k = 0; k < n; k++) {
        if (sigs[k] != SIGTERM && sigs[k] != SIGINT) continue;
        if (!sv->stopping) {
          event("SIG%s: stopping %d task%s", sigabbrev_np(sigs[k]), running(sv), running(sv) == 1 ? "" : "s");
          stop_all(sv, 0);
        } else if (!sv->killed) {
          kill_all(sv, 1);
        }
      }
    reap(sv);
  }
  event("stopped");
  return sv->rc;
}

/* ---------------- the command line ---------------- */

static int parse_ms(const char *flag, const char *val, int lo, int *out) {
  char *end;
  errno = 0;
  long v = strtol(val, &end, 10);
  if (errno || end == val || *end || v < lo || v > INT_MAX / 4) {
    fprintf(stderr, "tfc cluster: %s wants a whole number from %d to %d, not '%s'\n", flag, lo, INT_MAX / 4, val);
    return -1;
  }
  *out = (int)v;
  return 0;
}

int tfc_tool_cluster(int argc, char **argv) {
  const char *spec_text = NULL, *k8s = NULL, *list = NULL, *host = NULL, *name = "tfc", *image = "tfc";
  options opt = {.trainer_jobs = "chief,worker",
                 .backoff_ms = 500,
                 .max_backoff_ms = 30000,
                 .healthy_ms = 60000,
                 .max_restarts = 10,
                 .grace_ms = 10000};
  int have_name = 0, have_image = 0, have_sup = 0;
  char **trainer = NULL;
  int n_trainer = 0;
  for (int i = 0; i < argc; i++) {
    const char *flag = argv[i];
    if (strcmp(flag, "--") == 0) {
      trainer = argv + i + 1;
      n_trainer = argc - i - 1;
      if (n_trainer == 0) return cluster_usage("'--' is not followed by a trainer command");
      break;
    }
    if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
      fputs(kClusterUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      if (strncmp(flag, "--", 2) != 0) return cluster_usage(NULL);
      fprintf(stderr, "tfc cluster: %s needs a value\n", flag);
      return cluster_usage(NULL);
    }
    const char *val = argv[++i];
    int bad = 0;
    if (strcmp(flag, "--cluster") == 0) spec_text = val;
    else if (strcmp(flag, "--k8s") == 0) k8s = val;
    else if (strcmp(flag, "--tasks") == 0) list = val, have_sup = 1;
    else if (strcmp(flag, "--host") == 0) host = val, have_sup = 1;
    else if (strcmp(flag, "--trainer-jobs") == 0) opt.trainer_jobs = val;
    else if (strcmp(flag, "--name") == 0) name = val, have_name = 1;
    else if (strcmp(flag, "--image") == 0) image = val, have_image = 1;
    else if (strcmp(flag, "--cpus") == 0) bad = parse_ms(flag, val, 1, &opt.cpus);
    else if (strcmp(flag, "--backoff-ms") == 0) bad = parse_ms(flag, val, 0, &opt.backoff_ms), have_sup = 1;
    else if (strcmp(flag, "--max-backoff-ms") == 0) bad = parse_ms(flag, val, 0, &opt.max_backoff_ms), have_sup = 1;
    else if (strcmp(flag, "--healthy-ms") == 0) bad = parse_ms(flag, val, 0, &opt.healthy_ms), have_sup = 1;
    else if (strcmp(flag, "--max-restarts") == 0) bad = parse_ms(flag, val, 0, &opt.max_restarts);
    else if (strcmp(flag, "--grace-ms") == 0) bad = parse_ms(flag, val, 0, &opt.grace_ms), have_sup = 1;
    else {
      fprintf(stderr, "tfc cluster: unknown option '%s'\n", flag);
      return cluster_usage(NULL);
    }
    if (bad) return cluster_usage(NULL);
  }
  if (!!spec_text == !!k8s) return cluster_usage("give --cluster SPEC (run the tasks) or --k8s SPEC (write manifests)");
  if (list && host) return cluster_usage("--tasks and --host both pick the tasks: give one");
  if (spec_text && (have_name || have_image)) return cluster_usage("--name and --image go with --k8s");
  if (k8s && have_sup) return cluster_usage("--tasks, --host, --backoff-ms, --max-backoff-ms, --healthy-ms and --grace-ms go with --cluster");

  tfc_cluster_spec sp;
  if (tfc_cluster_spec_parse(k8s ? k8s : spec_text, k8s ? "--k8s" : "--cluster", &sp) != 0) {
    tfc_cluster_spec_fini(&sp);
    return 2;
  }
  if (k8s) {
    int rc = tfc_cluster_k8s(&sp, name, image, opt.trainer_jobs, trainer, n_trainer, opt.max_restarts, opt.cpus, stdout);
    tfc_cluster_spec_fini(&sp);
    return rc;
  }

  supervisor sv = {.opt = opt};
  int rc = 2;
  sv.n_tasks = select_tasks(&sp, list, host, &sv.tasks);
  if (sv.n_tasks < 0) goto out;
  rc = 1;
  for (int i = 0; i < sv.n_tasks; i++) {
    task *t = &sv.tasks[i];
    t->trainer = n_trainer > 0 && tfc_cluster_name_in_list(t->job, opt.trainer_jobs);
    sv.n_trainers += t->trainer;
    t->start_at = 0;
    if (task_command(t, spec_text, &sp, trainer, n_trainer, opt.cpus) != 0) {
      fprintf(stderr, "tfc cluster: RESOURCE_EXHAUSTED: out of memory\n");
      goto out;
    }
  }
  int sigfd = catch_signals();
  if (sigfd < 0) {
    fprintf(stderr, "tfc cluster: INTERNAL: cannot catch SIGCHLD/SIGTERM/SIGINT: %s\n", strerror(errno));
    goto out;
  }
  event("supervising %d task%s here (%d server%s, %d trainer%s) of cluster %s", sv.n_tasks, sv.n_tasks == 1 ? "" : "s",
        sv.n_tasks - sv.n_trainers, sv.n_tasks - sv.n_trainers == 1 ? "" : "s", sv.n_trainers,
        sv.n_trainers == 1 ? "" : "s", spec_text);
  rc = supervise(&sv, sigfd);
out:
  for (int i = 0; sv.tasks && i < sv.n_tasks; i++) {
    for (int k = 0; sv.tasks[i].argv && sv.tasks[i].argv[k]; k++) free(sv.tasks[i].argv[k]);
    free(sv.tasks[i].argv);
    free(sv.tasks[i].config);
    free(sv.tasks[i].envp);
  }
  free(sv.tasks);
  tfc_cluster_spec_fini(&sp);
  return rc;
}
