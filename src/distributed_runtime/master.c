/*
 * master — see master.h. This file: sessions (create, extend, close), the cluster's devices,
 * ListDevices and Reset; master_step.c: plans and steps.
 */
#include "distributed_runtime/master_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "device/device_name.h"
#include "distributed_runtime/wire.h"
#include "proto/graphdef.h"
#include "proto/pb_util.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/worker.pb-c.h"

void tfc_master_rpc_error(const char *call, const char *task, const tfc_status *err, tfc_status *out) {
  if (err->code == TFC_UNAVAILABLE || err->code == TFC_DEADLINE_EXCEEDED)
    tfc_status_set(out, err->code, "%s on %s failed: %s", call, task, tfc_status_msg(err));
  else
    tfc_status_set(out, err->code, "%s", tfc_status_msg(err));
}

/* ---------------- cancellation tokens ---------------- */

void tfc_master_cancel_init(tfc_master_cancel *c) {
  pthread_mutex_init(&c->mu, NULL);
  c->fired = 0;
  c->fn = NULL;
  c->arg = NULL;
}

void tfc_master_cancel_fini(tfc_master_cancel *c) { pthread_mutex_destroy(&c->mu); }

void tfc_master_cancel_fire(tfc_master_cancel *c) {
  pthread_mutex_lock(&c->mu);
  int first = !c->fired;
  c->fired = 1;
  if (first && c->fn) c->fn(c->arg);
  pthread_mutex_unlock(&c->mu);
}

/* ---------------- lifecycle ---------------- */

tfc_master *tfc_master_new(tfc_worker *local, const char *const *tasks, int n_tasks,
                           tfc_worker_channel_fn channel_for, void *channel_arg,
                           const tfc_session_config *default_cfg, tfc_status *s) {
  tfc_master *m = calloc(1, sizeof *m);
  if (!m) {
    TFC_OOM(s);
    return NULL;
  }
  pthread_mutex_init(&m->mu, NULL);
  tfc_session_config_init(&m->default_cfg);
  m->local = local;
  m->channel_for = channel_for;
  m->channel_arg = channel_arg;
  m->tasks = calloc((size_t)n_tasks + 1, sizeof *m->tasks);
  if (!m->tasks) goto oom;
  for (; m->n_tasks < n_tasks; m->n_tasks++)
    if (!(m->tasks[m->n_tasks] = tfc_strdup(tasks[m->n_tasks]))) goto oom;
  if (default_cfg && tfc_session_config_copy(default_cfg, &m->default_cfg, s)) goto fail;
  return m;
oom:
  TFC_OOM(s);
fail:
  tfc_master_free(m);
  return NULL;
}

static void msession_free(msession *ms);

void tfc_master_free(tfc_master *m) {
  if (!m) return;
  tfc_master_close_all(m);
  for (int i = 0; i < m->n_tasks; i++) free(m->tasks[i]);
  free(m->tasks);
  tfc_session_config_fini(&m->default_cfg);
  pthread_mutex_destroy(&m->mu);
  free(m);
}

/* ---------------- the cluster's devices ---------------- */

/* A device of another task, for placement and partitioning only: its name, type, kernels
 * (this build's table for its type) and incarnation; it runs nothing here. */
static void remote_free(tfc_device *d) {
  free(d->name);
  free(d);
}
static const tfc_device_ops remote_ops = {remote_free};

static tfc_device *remote_device_new(const char *name, const char *type, int64_t memory, uint64_t incarnation,
                                     tfc_status *s) {
  tfc_devname dn;
  if (tfc_devname_parse(name, &dn) || !tfc_devname_is_complete(&dn)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "a worker reported a malformed device name '%s'", name);
    return NULL;
  }
  if (strcmp(type, "CPU") != 0) return NULL; /* no kernels of that type in this build: unusable */
  const tfc_kernel_table *kt = tfc_cpu_kernel_table(s);
  if (!kt) return NULL;
  tfc_device *d = calloc(1, sizeof *d);
  if (!d || !(d->name = tfc_strdup(name))) {
    free(d);
    TFC_OOM(s);
    return NULL;
  }
  d->ops = &remote_ops;
  snprintf(d->type, sizeof d->type, "%s", type);
  d->id = dn.id;
  d->priority = 70;
  d->incarnation = incarnation;
  d->memory_bytes = memory;
  d->kernels = kt;
  return d;
}

static int add_device(msession *ms, tfc_device *d, int task) {
  tfc_device **a = realloc(ms->devices, sizeof *a * (size_t)(ms->n_devices + 1));
  int *t = realloc(ms->dev_task, sizeof *t * (size_t)(ms->n_devices + 1));
  if (a) ms->devices = a;
  if (t) ms->dev_task = t;
  if (!a || !t) return -1;
  ms->devices[ms->n_devices] = d;
  ms->dev_task[ms->n_devices++] = task;
  return 0;
}

/* ---------------- calls that a cancellation cuts short ---------------- */

/* The watch of a blocking call under a cancellation token: the token's fn cancels the call
 * while it is in flight; a token fired before the call started cancels it at once. */
static void cancel_pending(void *arg) { tfc_rpc_cancel(arg); }

static void watch_call(void *arg, tfc_rpc_pending *p) {
  tfc_master_cancel *c = arg;
  pthread_mutex_lock(&c->mu);
  int fired = c->fired;
  c->fn = p && !fired ? cancel_pending : NULL;
  c->arg = p && !fired ? p : NULL;
  pthread_mutex_unlock(&c->mu);
  if (p && fired) tfc_rpc_cancel(p);
}

static int cancel_fired(tfc_master_cancel *c) {
  if (!c) return 0;
  pthread_mutex_lock(&c->mu);
  int fired = c->fired;
  pthread_mutex_unlock(&c->mu);
  return fired;
}

/* GetStatus of one remote task, waiting for it to come up: attempts of growing length (1 s
 * doubling to 8 s) with wait-for-ready, a log line after each, until the deadline or until
 * `cancel` fires (the client went away, the server stops): then CANCELLED. */
static int get_status(tfc_master *m, const char *task, tfc_rpc_channel *ch, int64_t deadline_us,
                      tfc_master_cancel *cancel, Tensorflow__GetStatusResponse **out, tfc_status *s) {
  int64_t attempt_ms = 1000;
  for (;;) {
    if (cancel_fired(cancel))
      return tfc_status_set(s, TFC_CANCELLED,
                            "Cancelled while waiting for %s to answer GetStatus: the client went away or the server "
                            "is stopping",
                            task);
    int64_t now = tfc_now_us();
    int64_t until = now + attempt_ms * 1000;
    if (deadline_us > 0 && until > deadline_us) until = deadline_us;
    Tensorflow__GetStatusRequest req;
    tensorflow__get_status_request__init(&req);
    tfc_msg_out *msg = tfc_msg_out_new();
    if (!msg || tfc_wire_put_message(msg, &req.base, s)) {
      tfc_msg_out_free(msg);
      return tfc_status_ok(s) ? TFC_OOM(s) : s->code;
    }
    tfc_msg_in *resp = NULL;
    tfc_status err;
    tfc_status_init(&err);
    int code = tfc_rpc_call_sync_watched(ch, "/tensorflow.WorkerService/GetStatus", msg, until,
                                         TFC_RPC_WAIT_FOR_READY, cancel ? watch_call : NULL, cancel, &resp, &err);
    if (code == TFC_OK) {
      tfc_wire_tensors none;
      tfc_wire_tensors_init(&none);
      ProtobufCMessage *pm = NULL;
      code = tfc_wire_get_message(resp, &tensorflow__get_status_response__descriptor, 0, 0, "GetStatusResponse",
                                  &pm, &none, s);
      tfc_wire_tensors_fini(&none);
      tfc_msg_in_free(resp);
      tfc_status_fini(&err);
      *out = (Tensorflow__GetStatusResponse *)pm;
      return code;
    }
    tfc_msg_in_free(resp);
    if (cancel_fired(cancel)) {
      tfc_status_fini(&err);
      continue; /* reported above */
    }
    if (code != TFC_DEADLINE_EXCEEDED && code != TFC_UNAVAILABLE) {
      tfc_master_rpc_error("GetStatus", task, &err, s);
      tfc_status_fini(&err);
      return s->code;
    }
    if (deadline_us > 0 && tfc_now_us() >= deadline_us) {
      tfc_status_set(s, TFC_UNAVAILABLE,
                     "Could not reach %s within the session's operation_timeout_in_ms; it may not have started: %s",
                     task, tfc_status_msg(&err));
      tfc_status_fini(&err);
      return s->code;
    }
    tfc_status_fini(&err);
    fprintf(stderr, "CreateSession still waiting for response from worker: %s\n", task);
    fflush(stderr);
    if (attempt_ms < 8000) attempt_ms *= 2;
    (void)m;
  }
}

/* ConfigProto.device_filters, parsed into filters[] (at most cap); INVALID_ARGUMENT naming a
 * malformed one (TF's master dies on it: a bad config is the client's error here). */
static int parse_filters(const tfc_session_config *cfg, tfc_devname *filters, int cap, tfc_status *s) {
  if (cfg->n_device_filters > cap)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "ConfigProto device_filters: %d filters; at most %d",
                          cfg->n_device_filters, cap);
  for (int i = 0; i < cfg->n_device_filters; i++)
    if (tfc_devname_parse(cfg->device_filters[i], &filters[i]))
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "ConfigProto device_filters: '%s' is not a device name",
                            cfg->device_filters[i]);
  return TFC_OK;
}

/* Whether a device or task name matches one of the filters (a task matches a filter whose job,
 * replica and task, where given, are its own: its devices may match). No filters: all do. */
static int passes(const tfc_devname *filters, int n, const char *name, int task_only) {
  if (n == 0) return 1;
  tfc_devname d;
  if (tfc_devname_parse(name, &d)) return 0;
  for (int i = 0; i < n; i++) {
    tfc_devname f = filters[i];
    if (task_only) f.has_type = f.has_id = 0;
    if (tfc_devname_matches(&f, &d)) return 1;
  }
  return 0;
}

/* Up to this many device_filters (TF has no limit; real configs name a handful). */
#define MAX_DEVICE_FILTERS 64

/* The session's tasks and devices: this task's worker devices, then every other task's. With
 * ConfigProto.device_filters, as TF's DeviceFinder, only the other tasks that some filter
 * matches are asked (and waited for), and only their devices that match are used; this task
 * always takes part. */
static int discover(msession *ms, tfc_master_cancel *cancel, tfc_status *s) {
  tfc_master *m = ms->m;
  tfc_devname filters[MAX_DEVICE_FILTERS];
  int n_filters = ms->cfg.n_device_filters;
  TFC_TRY(parse_filters(&ms->cfg, filters, MAX_DEVICE_FILTERS, s));
  ms->tasks = calloc((size_t)m->n_tasks + 1, sizeof *ms->tasks);
  if (!ms->tasks) return TFC_OOM(s);
  int64_t deadline = tfc_deadline_after_ms(ms->cfg.operation_timeout_in_ms);
  const char *local = tfc_worker_task(m->local);
  for (int k = 0; k < m->n_tasks; k++) {
    int is_local = strcmp(m->tasks[k], local) == 0;
    if (!is_local && !passes(filters, n_filters, m->tasks[k], 1)) continue;
    int t = ms->n_tasks;
    mtask *mt = &ms->tasks[t];
    if (!(mt->name = tfc_strdup(m->tasks[k]))) return TFC_OOM(s);
    ms->n_tasks++;
    if (is_local) {
      mt->local = 1;
      for (int i = 0; i < tfc_worker_num_devices(m->local); i++)
        if (add_device(ms, tfc_worker_device(m->local, i), t)) return TFC_OOM(s);
      continue;
    }
    mt->ch = m->channel_for(m->channel_arg, mt->name, s);
    if (!mt->ch) return s->code;
    Tensorflow__GetStatusResponse *st = NULL;
    TFC_TRY(get_status(m, mt->name, mt->ch, deadline, cancel, &st, s));
    for (size_t i = 0; i < st->n_device_attributes; i++) {
      const Tensorflow__DeviceAttributes *da = st->device_attributes[i];
      size_t tl = strlen(mt->name);
      if (strncmp(da->name, mt->name, tl) != 0 || strncmp(da->name + tl, "/device:", 8) != 0) {
        tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s reported device '%s', which is not one of its own", mt->name,
                       da->name);
        break;
      }
      if (!passes(filters, n_filters, da->name, 0)) continue;
      tfc_device *d = remote_device_new(da->name, da->device_type, da->memory_limit, da->incarnation, s);
      if (!d && !tfc_status_ok(s)) break;
      if (d && add_device(ms, d, t)) {
        remote_free(d);
        TFC_OOM(s);
        break;
      }
    }
    protobuf_c_message_free_unpacked(&st->base, NULL);
    if (!tfc_status_ok(s)) return s->code;
  }
  return TFC_OK;
}

/* ---------------- sessions ---------------- */

static void msession_free(msession *ms) {
  for (mplan *p = ms->plans, *next; p; p = next) {
    next = p->next;
    tfc_mplan_free(ms, p, 1);
  }
  for (int i = 0; i < ms->n_devices; i++)
    if (!ms->tasks[ms->dev_task[i]].local) tfc_device_free(ms->devices[i]);
  free(ms->devices);
  free(ms->dev_task);
  for (int t = 0; t < ms->n_tasks; t++) free(ms->tasks[t].name);
  free(ms->tasks);
  tfc_placement_fini(ms->placement, ms->n_placed);
  free(ms->placement);
  tfc_graph_free(ms->graph);
  tfc_session_config_fini(&ms->cfg);
  pthread_cond_destroy(&ms->idle);
  pthread_mutex_destroy(&ms->mu);
  free(ms->handle);
  free(ms);
}

static msession *session_get(tfc_master *m, const char *handle, tfc_status *s) {
  pthread_mutex_lock(&m->mu);
  msession *ms = m->sessions;
  while (ms && strcmp(ms->handle, handle) != 0) ms = ms->next;
  if (ms) ms->refs++;
  pthread_mutex_unlock(&m->mu);
  if (!ms) tfc_status_set(s, TFC_ABORTED, "Session %s is not found. Possibly, this master has restarted.", handle);
  return ms;
}

static void session_put(msession *ms) {
  tfc_master *m = ms->m;
  pthread_mutex_lock(&m->mu);
  int last = --ms->refs == 0;
  pthread_mutex_unlock(&m->mu);
  if (last) msession_free(ms);
}

/* Imports GraphDef bytes into the session's graph; inputs naming nodes already there are
 * mapped to them (ExtendSession sends only the new nodes). */
static int import_nodes(msession *ms, const void *data, size_t len, tfc_status *s) {
  if (len == 0) return TFC_OK;
  Tensorflow__GraphDef *gd =
      (Tensorflow__GraphDef *)tfc_pb_unpack(&tensorflow__graph_def__descriptor, data, len, "Invalid GraphDef", s);
  if (!gd) return s->code;
  tfc_import_input_mapping *maps = NULL;
  int n_maps = 0, cap = 0;
  tfc_hashmap own;
  tfc_hashmap_init(&own);
  for (size_t i = 0; i < gd->n_node; i++)
    if (tfc_hashmap_put(&own, gd->node[i]->name, gd->node[i])) TFC_OOM(s);
  for (size_t i = 0; i < gd->n_node && tfc_status_ok(s); i++)
    for (size_t j = 0; j < gd->node[i]->n_input && tfc_status_ok(s); j++) {
      const char *in = gd->node[i]->input[j];
      int control = in[0] == '^';
      const char *name = in + control;
      const char *colon = strrchr(name, ':');
      size_t nl = colon && !control ? (size_t)(colon - name) : strlen(name);
      int index = control ? -1 : colon ? atoi(colon + 1) : 0;
      if (tfc_hashmap_get_n(&own, name, nl)) continue;
      char *nm = tfc_strndup(name, nl);
      tfc_node *src = nm ? tfc_graph_find(ms->graph, nm) : NULL;
      if (!src) {
        free(nm);
        if (!tfc_status_ok(s)) break;
        continue; /* the importer reports the unknown input */
      }
      if (n_maps == cap) {
        cap = cap ? cap * 2 : 16;
        tfc_import_input_mapping *a = realloc(maps, sizeof *a * (size_t)cap);
        if (!a) {
          free(nm);
          TFC_OOM(s);
          break;
        }
        maps = a;
      }
      maps[n_maps++] = (tfc_import_input_mapping){nm, index, {src, index}};
    }
  tfc_hashmap_fini(&own);
  if (tfc_status_ok(s)) {
    tfc_import_options o = {0};
    o.n_input_mappings = n_maps;
    o.input_mappings = maps;
    tfc_graphdef_import(ms->graph, data, len, &o, NULL, s);
  }
  for (int i = 0; i < n_maps; i++) free(maps[i].src_name);
  free(maps);
  protobuf_c_message_free_unpacked(&gd->base, NULL);
  return s->code;
}

int tfc_master_create_session(tfc_master *m, const void *graphdef, size_t graphdef_len, const void *cfg_bytes,
                              size_t cfg_len, tfc_master_cancel *cancel, char **out_handle, int64_t *out_version,
                              tfc_status *s) {
  *out_handle = NULL;
  msession *ms = calloc(1, sizeof *ms);
  if (!ms) return TFC_OOM(s);
  pthread_mutex_init(&ms->mu, NULL);
  pthread_cond_init(&ms->idle, NULL);
  tfc_session_config_init(&ms->cfg);
  ms->m = m;
  ms->refs = 1;
  if (tfc_session_config_copy(&m->default_cfg, &ms->cfg, s)) goto fail;
  if (cfg_bytes && cfg_len && tfc_session_config_parse(&ms->cfg, cfg_bytes, cfg_len, s)) goto fail;
  if (asprintf(&ms->handle, "%016llx", (unsigned long long)tfc_new_incarnation()) < 0) {
    ms->handle = NULL;
    TFC_OOM(s);
    goto fail;
  }
  if (!(ms->graph = tfc_graph_new())) {
    TFC_OOM(s);
    goto fail;
  }
  if (import_nodes(ms, graphdef, graphdef_len, s)) goto fail;
  if (discover(ms, cancel, s)) goto fail;
  if (!(*out_handle = tfc_strdup(ms->handle))) {
    TFC_OOM(s);
    goto fail;
  }
  *out_version = ms->version;
  pthread_mutex_lock(&m->mu);
  ms->next = m->sessions;
  m->sessions = ms;
  pthread_mutex_unlock(&m->mu);
  return TFC_OK;
fail:
  msession_free(ms);
  return s->code;
}

int tfc_master_extend_session(tfc_master *m, const char *handle, const void *graphdef, size_t graphdef_len,
                              int64_t current_version, int64_t *out_version, tfc_status *s) {
  msession *ms = session_get(m, handle, s);
  if (!ms) return s->code;
  pthread_mutex_lock(&ms->mu);
  if (ms->closed)
    tfc_status_set(s, TFC_FAILED_PRECONDITION, "Session %s has been closed.", handle);
  else if (current_version != ms->version)
    tfc_status_set(s, TFC_ABORTED, "Current version is %lld but caller expected %lld.", (long long)ms->version,
                   (long long)current_version);
  else if (import_nodes(ms, graphdef, graphdef_len, s) == TFC_OK)
    *out_version = ++ms->version;
  pthread_mutex_unlock(&ms->mu);
  session_put(ms);
  return s->code;
}

int tfc_master_run_step(tfc_master *m, const char *handle, int64_t timeout_ms, char *const *feed_names,
                        tfc_tensor *const *feeds, int n_feeds, char *const *fetch_names, int n_fetches,
                        char *const *target_names, int n_targets, tfc_master_cancel *cancel, tfc_tensor **out,
                        tfc_status *s) {
  for (int i = 0; i < n_fetches; i++) out[i] = NULL;
  msession *ms = session_get(m, handle, s);
  if (!ms) return s->code;
  tfc_msession_run(ms, timeout_ms, feed_names, feeds, n_feeds, fetch_names, n_fetches, target_names, n_targets,
                   cancel, out, s);
  session_put(ms);
  return s->code;
}

/* Unlinks a session from the master, aborts its steps and waits for them. */
static void close_session(msession *ms) {
  tfc_status st;
  tfc_status_init(&st);
  tfc_status_set(&st, TFC_CANCELLED, "Session %s was closed", ms->handle);
  pthread_mutex_lock(&ms->mu);
  ms->closed = 1;
  tfc_msession_abort_steps(ms, &st);
  while (ms->n_steps > 0) pthread_cond_wait(&ms->idle, &ms->mu);
  pthread_mutex_unlock(&ms->mu);
  tfc_status_fini(&st);
}

int tfc_master_close_session(tfc_master *m, const char *handle, tfc_status *s) {
  pthread_mutex_lock(&m->mu);
  msession *ms = NULL;
  for (msession **pp = &m->sessions; *pp; pp = &(*pp)->next)
    if (strcmp((*pp)->handle, handle) == 0) {
      ms = *pp;
      *pp = ms->next;
      break;
    }
  pthread_mutex_unlock(&m->mu);
  if (!ms) return tfc_status_set(s, TFC_NOT_FOUND, "Session %s is not found.", handle);
  close_session(ms);
  session_put(ms); /* the master's reference: the last one frees it and its graphs on every task */
  return TFC_OK;
}

void tfc_master_close_all(tfc_master *m) {
  for (;;) {
    pthread_mutex_lock(&m->mu);
    msession *ms = m->sessions;
    if (ms) m->sessions = ms->next;
    pthread_mutex_unlock(&m->mu);
    if (!ms) break;
    close_session(ms);
    session_put(ms);
  }
}

int tfc_master_reset(tfc_master *m, char *const *containers, int n, tfc_status *s) {
  tfc_master_close_all(m);
  const char *local = tfc_worker_task(m->local);
  for (int t = 0; t < m->n_tasks; t++) {
    tfc_status err;
    tfc_status_init(&err);
    if (strcmp(m->tasks[t], local) == 0) {
      tfc_worker_cleanup_all(m->local, containers, n, &err);
    } else {
      Tensorflow__CleanupAllRequest req;
      tensorflow__cleanup_all_request__init(&req);
      req.n_container = (size_t)n;
      req.container = (char **)containers;
      tfc_rpc_channel *ch = m->channel_for(m->channel_arg, m->tasks[t], &err);
      tfc_msg_out *msg = ch ? tfc_msg_out_new() : NULL;
      tfc_msg_in *resp = NULL;
      if (ch && !msg) TFC_OOM(&err);
      if (msg && tfc_wire_put_message(msg, &req.base, &err) == TFC_OK) {
        tfc_status rs;
        tfc_status_init(&rs);
        if (tfc_rpc_call_sync(ch, "/tensorflow.WorkerService/CleanupAll", msg, tfc_deadline_after_ms(10000), 0,
                              &resp, &rs))
          tfc_master_rpc_error("CleanupAll", m->tasks[t], &rs, &err);
        tfc_status_fini(&rs);
        msg = NULL;
      }
      tfc_msg_out_free(msg);
      tfc_msg_in_free(resp);
    }
    if (!tfc_status_ok(&err) && s && tfc_status_ok(s)) tfc_status_set(s, err.code, "%s", tfc_status_msg(&err));
    tfc_status_fini(&err);
  }
  return s ? s->code : TFC_OK;
}

/* ---------------- ListDevices ---------------- */

void tfc_master_devices_free(tfc_master_device *d, int n) {
  if (!d) return;
  for (int i = 0; i < n; i++) free(d[i].name);
  free(d);
}

static int copy_devices(const msession *ms, tfc_master_device **out, int *out_n, tfc_status *s) {
  tfc_master_device *d = calloc((size_t)ms->n_devices + 1, sizeof *d);
  if (!d) return TFC_OOM(s);
  for (int i = 0; i < ms->n_devices; i++) {
    const tfc_device *dev = ms->devices[i];
    if (!(d[i].name = tfc_strdup(dev->name))) {
      tfc_master_devices_free(d, i);
      return TFC_OOM(s);
    }
    snprintf(d[i].type, sizeof d[i].type, "%s", dev->type);
    d[i].memory_bytes = dev->memory_bytes;
    d[i].incarnation = dev->incarnation;
    d[i].local = ms->tasks[ms->dev_task[i]].local;
  }
  *out = d;
  *out_n = ms->n_devices;
  return TFC_OK;
}

int tfc_master_list_devices(tfc_master *m, const char *handle, tfc_master_cancel *cancel, tfc_master_device **out,
                            int *out_n, tfc_status *s) {
  *out = NULL;
  *out_n = 0;
  if (handle && handle[0]) {
    msession *ms = session_get(m, handle, s);
    if (!ms) return s->code;
    copy_devices(ms, out, out_n, s);
    session_put(ms);
    return s->code;
  }
  /* No session: find the devices now, as a session would. */
  msession tmp = {0};
  tmp.m = m;
  tfc_session_config_init(&tmp.cfg);
  pthread_mutex_init(&tmp.mu, NULL);
  pthread_cond_init(&tmp.idle, NULL);
  if (tfc_session_config_copy(&m->default_cfg, &tmp.cfg, s) == TFC_OK && discover(&tmp, cancel, s) == TFC_OK)
    copy_devices(&tmp, out, out_n, s);
  for (int i = 0; i < tmp.n_devices; i++)
    if (!tmp.tasks[tmp.dev_task[i]].local) tfc_device_free(tmp.devices[i]);
  free(tmp.devices);
  free(tmp.dev_task);
  for (int t = 0; t < tmp.n_tasks; t++) free(tmp.tasks[t].name);
  free(tmp.tasks);
  tfc_session_config_fini(&tmp.cfg);
  pthread_cond_destroy(&tmp.idle);
  pthread_mutex_destroy(&tmp.mu);
  return s->code;
}
