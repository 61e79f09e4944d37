/*
 * registry_api — C API questions about the registries: TF_GetAllRegisteredKernels and
 * TF_GetRegisteredKernelsForOp (KernelList protos of the compiled kernel tables and the user
 * kernels), TF_TryEvaluateConstant, and TF_RegisterLogListener (base/log.h).
 *
 * A kernel row becomes a KernelDef: op, device_type, a constraint per constrained type attr
 * with its allowed types (in dtype order), and host_memory_arg naming the arguments the row
 * keeps in host memory (inputs, then outputs, by the op def's argument names).
 *
 * TF_TryEvaluateConstant is TF's EvaluateConstantTensor, as shape inference uses it
 * (graph/shape_eval.h): Consts, what known shapes tell, and constant subgraphs run on the CPU
 * (control edges are not followed, as in TF). Anything else is "not constant" (0, OK).
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "capi/capi_internal.h"
#include "device/registry.h"
#include "device/user_kernel.h"
#include "graph/shape_eval.h"
#include "ops/opdef.h"
#include "ops/user_ops.h"
#include "proto/attr_codec.h"
#include "proto/pb_util.h"
#include "tensorflow/kernel_def.pb-c.h"

/* ---------------- kernel lists ---------------- */

typedef struct klist {
  tfc_pb_arena a;
  Tensorflow__KernelList l;
  size_t cap;
} klist;

static Tensorflow__KernelDef *klist_add(klist *k, const char *op, const char *device_type) {
  if (k->l.n_kernel == k->cap) {
    size_t cap = k->cap ? k->cap * 2 : 256;
    Tensorflow__KernelDef **n = tfc_pb_alloc(&k->a, sizeof *n * cap);
    if (!n) return NULL;
    if (k->l.n_kernel) memcpy(n, k->l.kernel, sizeof *n * k->l.n_kernel);
    k->l.kernel = n;
    k->cap = cap;
  }
  Tensorflow__KernelDef *d = tfc_pb_alloc(&k->a, sizeof *d);
  if (!d) return NULL;
  tensorflow__kernel_def__init(d);
  d->op = tfc_pb_strdup(&k->a, op);
  d->device_type = tfc_pb_strdup(&k->a, device_type);
  k->l.kernel[k->l.n_kernel++] = d;
  return d;
}

/* Adds a constraint attr in {the dtypes of mask} (or the single dtype `one` when mask is 0). */
static int add_constraint(klist *k, Tensorflow__KernelDef *d, const char *attr, uint32_t mask, int one,
                          tfc_status *s) {
  tfc_attr_value l = tfc_attr_list(TFC_ATTR_TYPE);
  for (int dt = 1; dt < TFC_DT_COUNT && dt < 32; dt++) {
    if (mask ? !(mask & TFC_T(dt)) : dt != one) continue;
    tfc_attr_value v = tfc_attr_type(dt);
    if (tfc_attr_list_append(&l, &v, s)) {
      tfc_attr_value_fini(&l);
      return s->code;
    }
  }
  Tensorflow__KernelDef__AttrConstraint *c = tfc_pb_alloc(&k->a, sizeof *c);
  Tensorflow__AttrValue *av = tfc_pb_alloc(&k->a, sizeof *av);
  Tensorflow__KernelDef__AttrConstraint **nc =
      tfc_pb_alloc(&k->a, sizeof *nc * (d->n_constraint + 1));
  int r = c && av && nc ? TFC_OK : TFC_OOM(s);
  if (r == TFC_OK) r = tfc_attr_to_proto(&l, &k->a, av, s);
  tfc_attr_value_fini(&l);
  if (r) return r;
  tensorflow__kernel_def__attr_constraint__init(c);
  c->name = tfc_pb_strdup(&k->a, attr);
  c->allowed_values = av;
  if (d->n_constraint) memcpy(nc, d->constraint, sizeof *nc * d->n_constraint);
  nc[d->n_constraint++] = c;
  d->constraint = nc;
  return TFC_OK;
}

static void add_host_arg(klist *k, Tensorflow__KernelDef *d, const char *name) {
  char **n = tfc_pb_alloc(&k->a, sizeof *n * (d->n_host_memory_arg + 1));
  if (!n) return;
  if (d->n_host_memory_arg) memcpy(n, d->host_memory_arg, sizeof *n * d->n_host_memory_arg);
  n[d->n_host_memory_arg++] = tfc_pb_strdup(&k->a, name);
  d->host_memory_arg = n;
}

static int add_table(klist *k, const tfc_kernel_table *t, const char *only_op, tfc_status *s) {
  for (int i = 0; i < t->n_defs; i++) {
    const tfc_kernel_def *row = &t->defs[i];
    const tfc_opdef *op = tfc_op_by_id(row->op);
    if (!op || (only_op && strcmp(op->name, only_op) != 0)) continue;
    Tensorflow__KernelDef *d = klist_add(k, op->name, t->device_type);
    if (!d) return TFC_OOM(s);
    if (row->type_attr) TFC_TRY(add_constraint(k, d, row->type_attr, row->types, 0, s));
    if (row->type_attr2) TFC_TRY(add_constraint(k, d, row->type_attr2, row->types2, 0, s));
    for (int a = 0; a < op->n_inputs && a < 32; a++)
      if (row->host_memory_in == TFC_HOST_ALL || (row->host_memory_in >> a & 1u) ||
          (a == 0 && (row->flags & TFC_KF_HOST_FIRST_HALF)))
        add_host_arg(k, d, op->inputs[a].name);
    for (int a = 0; a < op->n_outputs && a < 32; a++)
      if (row->host_memory_out == TFC_HOST_ALL || (row->host_memory_out >> a & 1u))
        add_host_arg(k, d, op->outputs[a].name);
  }
  return TFC_OK;
}

static int add_user_kernels(klist *k, const char *only_op, tfc_status *s) {
  for (int i = 0; i < tfc_user_kernel_count(); i++) {
    const tfc_user_kernel *u = tfc_user_kernel_at(i);
    if (only_op && strcmp(u->op_name, only_op) != 0) continue;
    Tensorflow__KernelDef *d = klist_add(k, u->op_name, u->device_type);
    if (!d) return TFC_OOM(s);
    for (int c = 0; c < u->n_constraints; c++)
      TFC_TRY(add_constraint(k, d, u->constraint_attrs[c], 0, u->constraint_types[c], s));
    for (int h = 0; h < u->n_host_args; h++) add_host_arg(k, d, u->host_args[h]);
  }
  return TFC_OK;
}

static TF_Buffer *kernel_list(const char *only_op, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_status scratch;
  if (!s) {
    tfc_status_init(&scratch);
    s = &scratch;
  }
  klist k;
  memset(&k, 0, sizeof k);
  tfc_pb_arena_init(&k.a);
  tensorflow__kernel_list__init(&k.l);
  static const char *types[] = {"CPU", "GPU"};
  int r = TFC_OK;
  for (size_t i = 0; i < sizeof types / sizeof types[0] && r == TFC_OK; i++) {
    const tfc_kernel_table *t = tfc_device_kernel_table(types[i], s);
    if (t) r = add_table(&k, t, only_op, s);
    else if (!tfc_status_ok(s)) r = s->code;
  }
  if (r == TFC_OK) r = add_user_kernels(&k, only_op, s);
  if (r == TFC_OK) r = tfc_pb_arena_status(&k.a, s);
  void *data = NULL;
  size_t len = 0;
  TF_Buffer *b = NULL;
  if (r == TFC_OK && tfc_pb_pack(&k.l.base, &data, &len, s) == TFC_OK) {
    if (!(b = TF_NewBuffer())) {
      free(data);
      TFC_OOM(s);
    } else if (tfc_capi_fill_buffer(b, data, len, s)) {
      TF_DeleteBuffer(b);
      b = NULL;
    }
  }
  tfc_pb_arena_fini(&k.a);
  if (s == &scratch) tfc_status_fini(&scratch);
  return b;
}

TFC_EXPORT TF_Buffer *TF_GetAllRegisteredKernels(TF_Status *status) { return kernel_list(NULL, status); }

TFC_EXPORT TF_Buffer *TF_GetRegisteredKernelsForOp(const char *name, TF_Status *status) {
  return kernel_list(name ? name : "", status);
}

/* ---------------- log listeners ---------------- */

TFC_EXPORT void TF_RegisterLogListener(void (*listener)(const char *)) { tfc_log_add_listener(listener); }

/* ---------------- constant evaluation ---------------- */

TFC_EXPORT unsigned char TF_TryEvaluateConstant(TF_Graph *graph, TF_Output output, TF_Tensor **result,
                                                TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (result) *result = NULL;
  if (!graph || !output.oper || !result) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_TryEvaluateConstant: graph, output and result must be given");
    return 0;
  }
  tfc_graph_lock(graph->g);
  tfc_tensor *v = tfc_shape_eval_tensor((tfc_endpoint){tfc_capi_node(output.oper), output.index});
  tfc_graph_unlock(graph->g);
  if (!v) return 0;
  /* a copy: the value may be a Const's own, which the caller must not be able to change */
  tfc_tensor *c = tfc_tensor_copy(v, s);
  tfc_tensor_unref(v);
  if (c) *result = tfc_capi_tensor_out(c, s);
  tfc_tensor_unref(c);
  return *result != NULL;
}
