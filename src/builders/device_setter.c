/*
 * builders/device_setter — tf.train.replica_device_setter (include/tfc/device_setter.h): a
 * device function for between-graph replication, placing the ps ops (variables, hash tables,
 * resource handles) on the parameter server tasks and everything else on the worker.
 *
 * It sits beside the scopes (scope.c), which call it for each node a builder makes under a
 * scope carrying it (TFC_ScopeWithDeviceFunction); the Python front end calls the same
 * function from its own device stack, so both place alike. The choice for one op is TF 1.15's
 * _ReplicaDeviceChooser.device_function:
 *   1. merge_devices off and a requested device: keep it;
 *   2. a ps op (and a ps device): ps_device, with task = strategy(op) when ps_device names a
 *      job and the requested job is empty or is that job; the request merged over it;
 *   3. otherwise worker_device with the request merged over it.
 * The request's fields win in both merges (tfc_devname_merge_override onto the setter's
 * device), and the result prints canonically, as DeviceSpec.to_string does.
 *
 * Strategies keep state across calls (the next task, the loads), which is why a strategy is
 * consulted only in case 2: TF's round-robin counts only the ops it places.
 */
#include "tfc/device_setter.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strbuf.h"
#include "builders/builders_internal.h"
#include "capi/server_def.h"
#include "device/device_name.h"
#include "tensor/dtype.h"
#include "tensorflow/cluster.pb-c.h"

#define FN "TFC_NewReplicaDeviceSetter: "

/* TF 1.15's STANDARD_PS_OPS (device_setter.py). TF 2.x adds DecisionTreeResource. */
static const char *const standard_ps_ops[] = {
    "Variable",
    "VariableV2",
    "AutoReloadVariable",
    "MutableHashTable",
    "MutableHashTableV2",
    "MutableHashTableOfTensors",
    "MutableHashTableOfTensorsV2",
    "MutableDenseHashTable",
    "MutableDenseHashTableV2",
    "VarHandleOp",
    "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp",
    "ResourceConditionalAccumulator",
};
#define N_STANDARD_PS_OPS ((int)(sizeof standard_ps_ops / sizeof *standard_ps_ops))

typedef enum { STRATEGY_ROUND_ROBIN = 0, STRATEGY_GREEDY = 1, STRATEGY_CUSTOM = 2 } strategy_kind;

struct TFC_ReplicaDeviceSetter {
  int ps_tasks;
  int merge_devices;
  int has_ps, has_worker; /* ps_device / worker_device given non-empty */
  tfc_devname ps, worker;
  char **ps_ops;
  int n_ps_ops;
  strategy_kind kind;
  int next_task;  /* round-robin */
  double *loads;  /* greedy: one per task */
  int n_loads;
  TFC_PsLoadFunction load_fn;
  TFC_PsStrategyFunction strategy_fn;
  void *ctx;
};

TFC_EXPORT int TFC_ReplicaDeviceSetterStandardPsOp(const char *op_type) {
  for (int i = 0; op_type && i < N_STANDARD_PS_OPS; i++)
    if (strcmp(standard_ps_ops[i], op_type) == 0) return 1;
  return 0;
}

/* The tasks of job `job` in a serialized ClusterDef (*out_n -1: no such job). */
static int cluster_def_tasks(const TF_Buffer *cd, const char *job, int *out_n, tfc_status *s) {
  *out_n = -1;
  Tensorflow__ClusterDef *m = tensorflow__cluster_def__unpack(NULL, cd->length, cd->data);
  if (!m && cd->length > 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "cluster_def (%zu bytes) is not a valid serialized ClusterDef",
                          cd->length);
  for (size_t j = 0; m && job && j < m->n_job; j++)
    if (m->job[j]->name && strcmp(m->job[j]->name, job) == 0) {
      *out_n = (int)m->job[j]->n_tasks;
      break;
    }
  if (m) tensorflow__cluster_def__free_unpacked(m, NULL);
  return TFC_OK;
}

static int parse_device(const char *spec, const char *what, tfc_devname *out, int *has, tfc_status *s) {
  memset(out, 0, sizeof *out);
  *has = spec && *spec;
  if (*has && tfc_devname_parse(spec, out) != 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "%s: Malformed device specification '%s'", what, spec);
  return TFC_OK;
}

TFC_EXPORT TFC_ReplicaDeviceSetter *TFC_NewReplicaDeviceSetter(int ps_tasks, const char *ps_device,
                                                              const char *worker_device, unsigned char merge_devices,
                                                              const TF_Buffer *cluster_def, const char *cluster_spec,
                                                              const char *const *ps_ops, int num_ps_ops,
                                                              TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  TFC_ReplicaDeviceSetter *r = NULL;
  if (!ps_device) ps_device = "/job:ps";
  if (!worker_device) worker_device = "/job:worker";
  tfc_devname ps, worker;
  int has_ps, has_worker;
  if (parse_device(ps_device, "ps_device", &ps, &has_ps, s) ||
      parse_device(worker_device, "worker_device", &worker, &has_worker, s))
    goto out;
  if (ps_ops && num_ps_ops < 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "num_ps_ops is %d", num_ps_ops);
    goto out;
  }
  /* 1. The number of ps tasks: the cluster's ps job when a cluster is given. */
  if (cluster_def && cluster_spec) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "give either cluster_def or cluster_spec, not both");
    goto out;
  }
  if (cluster_def || cluster_spec) {
    const char *job = ps.has_job ? ps.job : NULL;
    int n = -1;
    if (cluster_def ? cluster_def_tasks(cluster_def, job, &n, s)
                    : tfc_cluster_spec_num_tasks(cluster_spec, job, FN "cluster_spec: ", &n, s))
      goto out;
    ps_tasks = n < 0 ? 0 : n;
  } else if (ps_tasks < 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "ps_tasks must be 0 or more, got %d", ps_tasks);
    goto out;
  }
  if (ps_tasks == 0) goto out; /* TF returns None: no device function */
  /* 2. The setter. */
  if (!(r = calloc(1, sizeof *r))) {
    TFC_OOM(s);
    goto out;
  }
  r->ps_tasks = ps_tasks;
  r->merge_devices = merge_devices != 0;
  r->ps = ps;
  r->worker = worker;
  r->has_ps = has_ps;
  r->has_worker = has_worker;
  const char *const *list = ps_ops ? ps_ops : standard_ps_ops;
  int n_list = ps_ops ? num_ps_ops : N_STANDARD_PS_OPS;
  if (!(r->ps_ops = calloc((size_t)n_list + 1, sizeof *r->ps_ops))) {
    TFC_OOM(s);
    goto out;
  }
  for (int i = 0; i < n_list; i++) {
    if (!list[i]) continue; /* a NULL entry names no op */
    if (!(r->ps_ops[r->n_ps_ops] = tfc_strdup(list[i]))) {
      TFC_OOM(s);
      goto out;
    }
    r->n_ps_ops++;
  }
out:
  if (!tfc_status_ok(s)) {
    TFC_DeleteReplicaDeviceSetter(r);
    r = NULL;
  }
  tfc_status_fini(&scratch);
  return r;
}

TFC_EXPORT void TFC_DeleteReplicaDeviceSetter(TFC_ReplicaDeviceSetter *setter) {
  if (!setter) return;
  for (int i = 0; i < setter->n_ps_ops; i++) free(setter->ps_ops[i]);
  free(setter->ps_ops);
  free(setter->loads);
  free(setter);
}

TFC_EXPORT int TFC_ReplicaDeviceSetterPsTasks(const TFC_ReplicaDeviceSetter *setter) {
  return setter ? setter->ps_tasks : 0;
}

TFC_EXPORT void TFC_ReplicaDeviceSetterUseGreedyStrategy(TFC_ReplicaDeviceSetter *setter, int num_tasks,
                                                         TFC_PsLoadFunction load_fn, void *ctx, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  double *loads = NULL;
  if (!setter) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_ReplicaDeviceSetterUseGreedyStrategy: setter is NULL");
  } else if (num_tasks < 1) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "GreedyLoadBalancingStrategy: num_tasks must be 1 or more, got %d", num_tasks);
  } else if (!(loads = calloc((size_t)num_tasks, sizeof *loads))) {
    TFC_OOM(s);
  } else {
    free(setter->loads);
    setter->loads = loads;
    setter->n_loads = num_tasks;
    setter->kind = STRATEGY_GREEDY;
    setter->load_fn = load_fn;
    setter->strategy_fn = NULL;
    setter->ctx = ctx;
  }
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_ReplicaDeviceSetterUseStrategy(TFC_ReplicaDeviceSetter *setter, TFC_PsStrategyFunction fn,
                                                   void *ctx, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  if (!setter) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_ReplicaDeviceSetterUseStrategy: setter is NULL");
  } else if (!fn) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "ps_strategy must be callable");
  } else {
    setter->kind = STRATEGY_CUSTOM;
    setter->strategy_fn = fn;
    setter->load_fn = NULL;
    setter->ctx = ctx;
  }
  tfc_status_fini(&scratch);
}

/* The size TF Python's DType.size gives: 1 for resource and variant handles, a pointer for
 * strings (numpy's object itemsize), else the element size. */
static double py_dtype_size(int dtype) {
  dtype = tfc_dtype_base(dtype);
  if (dtype == TFC_DT_RESOURCE || dtype == TFC_DT_VARIANT) return 1;
  if (dtype == TFC_DT_STRING) return 8;
  return (double)tfc_dtype_size(dtype);
}

/* byte_size_load_fn: the bytes of the op's single output. */
static int byte_size_load(const char *op_type, const char *op_name, TF_Operation *op, double *out, tfc_status *s) {
  const tfc_node *n = tfc_capi_node(op);
  if (!n)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "byte_size_load_fn: op '%s' (%s) is not built yet, so its size is unknown", op_name, op_type);
  if (n->n_outputs != 1)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Op %s must have a single output", n->name);
  tfc_shape sh = n->output_shapes[0];
  if (!tfc_shape_fully_defined(&sh)) {
    /* TF: scalar variables' outputs can be unknown at placement; the "shape" attr stands in. */
    const tfc_attr_value *a = tfc_node_attr(n, "shape");
    if (a && a->kind == TFC_ATTR_SHAPE && a->u.shape) sh = *a->u.shape;
  }
  if (!tfc_shape_fully_defined(&sh))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "byte_size_load_fn: op %s: Shape is not fully defined", n->name);
  *out = (double)tfc_shape_num_elements(&sh) * py_dtype_size(n->output_types[0]);
  return TFC_OK;
}

/* Calls a user callback with a fresh TF_Status; its error becomes ours. */
static int take_status(TF_Status *st, tfc_status *s) {
  if (TF_GetCode(st) != TF_OK) tfc_status_set(s, (int)TF_GetCode(st), "%s", TF_Message(st));
  TF_DeleteStatus(st);
  return s->code;
}

/* The ps task for op (the strategy's state advances). */
static int choose_task(TFC_ReplicaDeviceSetter *r, const char *op_type, const char *op_name, TF_Operation *op,
                       int *out, tfc_status *s) {
  switch (r->kind) {
    case STRATEGY_ROUND_ROBIN:
      *out = r->next_task;
      r->next_task = (r->next_task + 1) % r->ps_tasks;
      return TFC_OK;
    case STRATEGY_GREEDY: {
      int best = 0;
      for (int i = 1; i < r->n_loads; i++)
        if (r->loads[i] < r->loads[best]) best = i; /* ties: the lowest index, as np.argmin */
      double load = 0;
      if (r->load_fn) {
        TF_Status *st = TF_NewStatus();
        if (!st) return TFC_OOM(s);
        load = r->load_fn(r->ctx, op_type, op_name, op, st);
        TFC_TRY(take_status(st, s));
      } else {
        TFC_TRY(byte_size_load(op_type, op_name, op, &load, s));
      }
      r->loads[best] += load;
      *out = best;
      return TFC_OK;
    }
    case STRATEGY_CUSTOM: {
      TF_Status *st = TF_NewStatus();
      if (!st) return TFC_OOM(s);
      int task = r->strategy_fn(r->ctx, op_type, op_name, op, st);
      TFC_TRY(take_status(st, s));
      if (task < 0)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "ps_strategy gave task %d for op '%s'", task, op_name);
      *out = task;
      return TFC_OK;
    }
  }
  return tfc_status_set(s, TFC_INTERNAL, "unknown ps strategy %d", (int)r->kind);
}

TFC_EXPORT int TFC_ReplicaDeviceSetterChooseTask(TFC_ReplicaDeviceSetter *setter, const char *op_type,
                                                 const char *op_name, TF_Operation *op, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  int task = -1;
  if (!setter || !op_type || !op_name)
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "TFC_ReplicaDeviceSetterChooseTask: setter, op_type and op_name are required");
  else if (choose_task(setter, op_type, op_name, op, &task, s))
    task = -1;
  tfc_status_fini(&scratch);
  return task;
}

static int is_ps_op(const TFC_ReplicaDeviceSetter *r, const char *op_type) {
  for (int i = 0; i < r->n_ps_ops; i++)
    if (strcmp(r->ps_ops[i], op_type) == 0) return 1;
  return 0;
}

static TF_Buffer *device_buffer(const tfc_devname *d, tfc_status *s) {
  tfc_strbuf sb;
  tfc_strbuf_init(&sb);
  tfc_devname_print(d, &sb);
  TF_Buffer *b = tfc_strbuf_ok(&sb) ? TF_NewBufferFromString(tfc_strbuf_str(&sb), strlen(tfc_strbuf_str(&sb))) : NULL;
  tfc_strbuf_fini(&sb);
  if (!b) TFC_OOM(s);
  return b;
}

TFC_EXPORT TF_Buffer *TFC_ReplicaDeviceSetterFunction(void *setter, const char *op_type, const char *op_name,
                                                      const char *device, TF_Operation *op, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  TFC_ReplicaDeviceSetter *r = setter;
  TF_Buffer *b = NULL;
  tfc_devname cur, d;
  if (!device) device = "";
  if (!r || !op_type || !op_name) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_ReplicaDeviceSetterFunction: setter, op_type and op_name are required");
  } else if (!r->merge_devices && *device) {
    /* 1. merge_devices off: a requested device stays as it is. */
    if (!(b = TF_NewBufferFromString(device, strlen(device)))) TFC_OOM(s);
  } else if (tfc_devname_parse(device, &cur) != 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "node '%s' (%s): Malformed device specification '%s'", op_name, op_type,
                   device);
  } else if (r->has_ps && is_ps_op(r, op_type)) {
    /* 2. A ps op: the strategy's task when the request leaves the ps job free. */
    d = r->ps;
    int task = 0;
    if (d.has_job && (!cur.has_job || strcmp(cur.job, d.job) == 0)) {
      if (choose_task(r, op_type, op_name, op, &task, s) == TFC_OK) {
        d.has_task = 1;
        d.task = task;
      }
    }
    if (tfc_status_ok(s)) {
      tfc_devname_merge_override(&d, &cur);
      b = device_buffer(&d, s);
    }
  } else {
    /* 3. Everything else: the worker. */
    if (r->has_worker) d = r->worker;
    else memset(&d, 0, sizeof d);
    tfc_devname_merge_override(&d, &cur);
    b = device_buffer(&d, s);
  }
  tfc_status_fini(&scratch);
  return b;
}
