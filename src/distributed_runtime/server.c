/*
 * server — see server.h.
 */
#include "distributed_runtime/server.h"

#include <arpa/inet.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "distributed_runtime/master.h"
#include "distributed_runtime/rpc.h"
#include "distributed_runtime/services.h"
#include "distributed_runtime/worker.h"
#include "proto/pb_util.h"
#include "session/config.h"
#include "tensorflow/tensorflow_server.pb-c.h"

typedef struct task_addr {
  char *name;    /* "/job:J/replica:0/task:T" */
  char *address; /* "host:port" */
  tfc_rpc_channel *ch;
} task_addr;

enum { SRV_NEW, SRV_STARTED, SRV_STOPPED };

struct tfc_server {
  int n_tasks;
  task_addr *tasks;
  int self; /* index of this task */
  char *bind;
  char *target;
  tfc_session_config cfg;
  tfc_rpc_server *rpc;
  tfc_worker *worker;
  tfc_master *master;
  pthread_mutex_t mu; /* state, channels */
  pthread_cond_t cv;
  int state;
  int channels_closed; /* stopping: calls to other tasks fail at once */
};

/* How long a stopping server lets the calls it serves finish their business with other tasks
 * (a cancelled step telling them to abort) before it cancels its own calls to them: a task
 * that is stopped or unreachable must not hold the stop up. */
#define STOP_GRACE_US (300 * 1000LL)

/* ---------------- the cluster ---------------- */

static tfc_rpc_channel *channel_for(void *arg, const char *task, tfc_status *s) {
  tfc_server *srv = arg;
  for (int i = 0; i < srv->n_tasks; i++) {
    task_addr *t = &srv->tasks[i];
    if (strcmp(t->name, task) != 0) continue;
    pthread_mutex_lock(&srv->mu);
    if (!t->ch) {
      t->ch = tfc_rpc_channel_new(t->address, 0, s);
      if (srv->channels_closed) tfc_rpc_channel_close(t->ch);
    }
    tfc_rpc_channel *ch = t->ch;
    pthread_mutex_unlock(&srv->mu);
    return ch;
  }
  tfc_status_set(s, TFC_INVALID_ARGUMENT, "Task %s is not in this server's cluster", task);
  return NULL;
}

/* Splits "host:port" at its last colon. Returns 0 with the host's length (at least 1) in
 * *out_host_len and the port in *out_port, or -1 (outputs untouched) when addr is not
 * host:port with a port in [0, 65535]. Allocates nothing, so it fails only on the address. */
static int split_address(const char *addr, size_t *out_host_len, int *out_port) {
  const char *colon = strrchr(addr, ':');
  if (!colon || colon == addr) return -1;
  char *end;
  long p = strtol(colon + 1, &end, 10);
  if (end == colon + 1 || *end || p < 0 || p > 65535) return -1;
  *out_host_len = (size_t)(colon - addr);
  *out_port = (int)p;
  return 0;
}

/* Whether the host part of an address, host[0, len), is exactly `name`. */
static int host_is(const char *host, size_t len, const char *name) {
  return strlen(name) == len && memcmp(host, name, len) == 0;
}

/* Where a task whose address has host[0, len) listens, into out (>= INET_ADDRSTRLEN + 2
 * bytes): localhost and loopback literals listen on that loopback address alone (all of
 * 127.0.0.0/8 is this machine's loopback, so tasks on 127.0.0.2 and 127.0.0.3 are separate
 * "hosts" that may share a port); any other host on all interfaces ("0.0.0.0"), as TF's
 * servers do. Returns whether the address is a loopback one (then clients here dial it). */
static int listen_host(const char *host, size_t len, char *out, size_t cap) {
  if (host_is(host, len, "localhost") || host_is(host, len, "127.0.0.1")) {
    snprintf(out, cap, "127.0.0.1");
    return 1;
  }
  if (host_is(host, len, "[::1]") || host_is(host, len, "::1")) {
    snprintf(out, cap, "[::1]");
    return 1;
  }
  char lit[INET_ADDRSTRLEN];
  struct in_addr a;
  if (len < sizeof lit) {
    memcpy(lit, host, len);
    lit[len] = 0;
    if (inet_pton(AF_INET, lit, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127) {
      snprintf(out, cap, "%s", lit);
      return 1;
    }
  }
  snprintf(out, cap, "0.0.0.0");
  return 0;
}

/* The target of this task's own master: its loopback address, or localhost when it listens
 * on every interface. NULL on out of memory. */
static char *self_target(const char *host, size_t len, int port) {
  char lh[INET6_ADDRSTRLEN + 2], *t = NULL;
  int loop = listen_host(host, len, lh, sizeof lh);
  if (asprintf(&t, "grpc://%s:%d", loop && strcmp(lh, "127.0.0.1") ? lh : "localhost", port) < 0) return NULL;
  return t;
}

static int parse(tfc_server *srv, const Tensorflow__ServerDef *sd, tfc_status *s) {
  if (sd->protocol && sd->protocol[0] && strcmp(sd->protocol, "grpc") != 0)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "ServerDef.protocol '%s' is not supported; tfc speaks \"grpc\"",
                          sd->protocol);
  if (!sd->job_name || !sd->job_name[0])
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "ServerDef.job_name is empty");
  if (!sd->cluster || sd->cluster->n_job == 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "ServerDef.cluster has no jobs");
  size_t total = 0;
  for (size_t j = 0; j < sd->cluster->n_job; j++) total += sd->cluster->job[j]->n_tasks;
  srv->tasks = calloc(total + 1, sizeof *srv->tasks);
  if (!srv->tasks) return TFC_OOM(s);
  srv->self = -1;
  int job_found = 0;
  for (size_t j = 0; j < sd->cluster->n_job; j++) {
    const Tensorflow__JobDef *job = sd->cluster->job[j];
    if (!job->name || !job->name[0]) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "ClusterDef has a job without a name");
    for (size_t k = 0; k < j; k++)
      if (strcmp(sd->cluster->job[k]->name, job->name) == 0)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "ClusterDef names job '%s' twice", job->name);
    if (strcmp(job->name, sd->job_name) == 0) job_found = 1;
    for (size_t t = 0; t < job->n_tasks; t++) {
      task_addr *ta = &srv->tasks[srv->n_tasks];
      size_t host_len;
      int port;
      if (!job->tasks[t]->value || split_address(job->tasks[t]->value, &host_len, &port))
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Task %d of job '%s' has a malformed address '%s' (want host:port)",
                              job->tasks[t]->key, job->name, job->tasks[t]->value ? job->tasks[t]->value : "");
      if (asprintf(&ta->name, "/job:%s/replica:0/task:%d", job->name, job->tasks[t]->key) < 0) {
        ta->name = NULL;
        return TFC_OOM(s);
      }
      if (!(ta->address = tfc_strdup(job->tasks[t]->value))) {
        free(ta->name);
        ta->name = NULL;
        return TFC_OOM(s);
      }
      srv->n_tasks++;
      if (strcmp(job->name, sd->job_name) == 0 && job->tasks[t]->key == sd->task_index) srv->self = srv->n_tasks - 1;
    }
  }
  if (!job_found) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Job \"%s\" was not defined in cluster", sd->job_name);
  if (srv->self < 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Task %d was not defined in job \"%s\"", sd->task_index,
                          sd->job_name);
  /* Where to listen: the task's own port (or ServerDef.port), on its loopback address when the
   * cluster names one (listen_host). */
  const char *host = srv->tasks[srv->self].address;
  size_t host_len;
  int port;
  if (split_address(host, &host_len, &port)) /* every task's address passed the loop above */
    return tfc_status_set(s, TFC_INTERNAL, "this task's address '%s' is not host:port", host);
  if (sd->port) port = sd->port;
  char bind_host[INET6_ADDRSTRLEN + 2];
  listen_host(host, host_len, bind_host, sizeof bind_host);
  /* asprintf leaves its pointer undefined on failure: reset it so that the server's free stays safe. */
  if (asprintf(&srv->bind, "%s:%d", bind_host, port) < 0) {
    srv->bind = NULL;
    return TFC_OOM(s);
  }
  if (!(srv->target = self_target(host, host_len, port))) return TFC_OOM(s);
  if (sd->default_session_config) {
    void *cfg = NULL;
    size_t len = 0;
    TFC_TRY(tfc_pb_pack(&sd->default_session_config->base, &cfg, &len, s));
    tfc_session_config_parse(&srv->cfg, cfg, len, s);
    free(cfg);
  }
  return s->code;
}

/* ---------------- lifecycle ---------------- */

tfc_server *tfc_server_new(const void *server_def, size_t len, tfc_status *s) {
  tfc_server *srv = calloc(1, sizeof *srv);
  if (!srv) {
    TFC_OOM(s);
    return NULL;
  }
  pthread_mutex_init(&srv->mu, NULL);
  pthread_cond_init(&srv->cv, NULL);
  tfc_session_config_init(&srv->cfg);
  Tensorflow__ServerDef *sd =
      (Tensorflow__ServerDef *)tfc_pb_unpack(&tensorflow__server_def__descriptor, server_def, len, "ServerDef", s);
  if (!sd) goto fail;
  int rc = parse(srv, sd, s);
  int task_index = sd->task_index;
  char *job = tfc_strdup(sd->job_name ? sd->job_name : "");
  protobuf_c_message_free_unpacked(&sd->base, NULL);
  if (rc || !job) {
    free(job);
    if (tfc_status_ok(s)) TFC_OOM(s);
    goto fail;
  }
  srv->worker = tfc_worker_new(job, task_index, &srv->cfg, channel_for, srv, s);
  free(job);
  if (!srv->worker) goto fail;
  const char **names = calloc((size_t)srv->n_tasks + 1, sizeof *names);
  if (!names) {
    TFC_OOM(s);
    goto fail;
  }
  for (int i = 0; i < srv->n_tasks; i++) names[i] = srv->tasks[i].name;
  srv->master = tfc_master_new(srv->worker, names, srv->n_tasks, channel_for, srv, &srv->cfg, s);
  free(names);
  if (!srv->master) goto fail;
  srv->rpc = tfc_rpc_server_new(srv->bind, 0, s);
  if (!srv->rpc || tfc_worker_service_add(srv->rpc, srv->worker, s) || tfc_master_service_add(srv->rpc, srv->master, s))
    goto fail;
  return srv;
fail:
  tfc_server_free(srv);
  return NULL;
}

int tfc_server_start(tfc_server *srv, tfc_status *s) {
  pthread_mutex_lock(&srv->mu);
  if (srv->state != SRV_NEW) {
    int started = srv->state == SRV_STARTED;
    pthread_mutex_unlock(&srv->mu);
    /* TF: starting a started server is fine; a stopped one cannot be restarted. */
    return started ? TFC_OK : tfc_status_set(s, TFC_FAILED_PRECONDITION, "Server has stopped and cannot be restarted.");
  }
  int port = 0;
  if (tfc_rpc_server_start(srv->rpc, &port, s) == TFC_OK) {
    srv->state = SRV_STARTED;
    /* Port 0 picked a free port: the target and this task's own address now say which. */
    const char *self_addr = srv->tasks[srv->self].address;
    char *target = NULL, *addr = NULL;
    size_t host_len;
    int old;
    if (split_address(self_addr, &host_len, &old) == 0 && host_len <= INT_MAX) {
      /* asprintf leaves its pointer undefined on failure: reset it before the free below. */
      if (asprintf(&addr, "%.*s:%d", (int)host_len, self_addr, port) < 0) addr = NULL;
      if (addr) target = self_target(self_addr, host_len, port);
    }
    if (addr && target) {
      free(srv->tasks[srv->self].address);
      srv->tasks[srv->self].address = addr;
      free(srv->target);
      srv->target = target;
    } else {
      free(addr);
    }
  }
  pthread_mutex_unlock(&srv->mu);
  return s->code;
}

int tfc_server_stop(tfc_server *srv, tfc_status *s) {
  pthread_mutex_lock(&srv->mu);
  int was = srv->state;
  srv->state = SRV_STOPPED;
  pthread_mutex_unlock(&srv->mu);
  if (was != SRV_STOPPED && srv->rpc) {
    /* Calls in flight are cancelled: each handler hears of it (a step aborts, a CreateSession
     * stops waiting). One still waiting on another task after a short grace has its calls
     * there cancelled, so the stop never waits for a task that does not answer. */
    tfc_rpc_server_cancel_calls(srv->rpc);
    if (!tfc_rpc_server_wait_calls(srv->rpc, tfc_now_us() + STOP_GRACE_US)) {
      pthread_mutex_lock(&srv->mu);
      srv->channels_closed = 1;
      for (int i = 0; i < srv->n_tasks; i++) tfc_rpc_channel_close(srv->tasks[i].ch);
      pthread_mutex_unlock(&srv->mu);
    }
    tfc_rpc_server_shutdown(srv->rpc);
  }
  if (was != SRV_STOPPED && srv->master) tfc_master_close_all(srv->master);
  pthread_mutex_lock(&srv->mu);
  pthread_cond_broadcast(&srv->cv);
  pthread_mutex_unlock(&srv->mu);
  (void)s;
  return TFC_OK;
}

int tfc_server_join(tfc_server *srv, tfc_status *s) {
  pthread_mutex_lock(&srv->mu);
  while (srv->state != SRV_STOPPED) pthread_cond_wait(&srv->cv, &srv->mu);
  pthread_mutex_unlock(&srv->mu);
  (void)s;
  return TFC_OK;
}

const char *tfc_server_target(tfc_server *srv) { return srv->target; }

void tfc_server_load(tfc_server *srv, int *out_calls, int *out_busy, int *out_steps) {
  tfc_rpc_server_load(srv->rpc, out_calls, out_busy);
  if (out_steps) *out_steps = tfc_worker_num_steps(srv->worker);
}

void tfc_server_free(tfc_server *srv) {
  if (!srv) return;
  tfc_status ignore;
  tfc_status_init(&ignore);
  tfc_server_stop(srv, &ignore);
  tfc_status_fini(&ignore);
  tfc_rpc_server_free(srv->rpc);
  tfc_master_free(srv->master);
  tfc_worker_free(srv->worker);
  for (int i = 0; i < srv->n_tasks; i++) {
    tfc_rpc_channel_free(srv->tasks[i].ch);
    free(srv->tasks[i].name);
    free(srv->tasks[i].address);
  }
  free(srv->tasks);
  free(srv->bind);
  free(srv->target);
  tfc_session_config_fini(&srv->cfg);
  pthread_cond_destroy(&srv->cv);
  pthread_mutex_destroy(&srv->mu);
  free(srv);
}
