/*
 * kernels_api — include/tensorflow/c/kernels.h: kernels of user ops, built and registered at
 * run time, and the construction and compute contexts their callbacks see.
 *
 * TF_RegisterKernelBuilder turns a builder into a row of the user kernel registry
 * (device/user_kernel.h) whose tfc_kernel_def calls the bridges below; tfc_kernel_find finds
 * the row for a node of the op, so placement and the executor treat it as any kernel:
 *
 *   init (once per node per executor): finds the node's row again (its device type and type
 *     constraints decide, as they decided the lookup), calls create with the node's attrs
 *     behind a TF_OpKernelConstruction, and keeps {builder, the user's pointer} as the state.
 *     A failure reported during create deletes the instance and fails executor creation
 *     with "node 'x' (Op): <msg>".
 *   compute (once per step): calls compute with the tfc_kernel_ctx cast to
 *     TF_OpKernelContext; a failure it reports is the step's error, which the executor
 *     names with the node.
 *   free_state: calls delete.
 *
 * A builder, once registered, lives for the process (the row points to it). Tensors handed
 * to compute share the runtime's buffers (inputs are read only); TF_AllocateOutput's tensor
 * shares the output's buffer, so numeric outputs are filled in place.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capi/capi_internal.h"
#include "capi/library.h"
#include "device/kernel.h"
#include "device/user_kernel.h"
#include "tensorflow/c/kernels.h"

struct TF_KernelBuilder {
  tfc_user_kernel *row;
  void *(*create)(TF_OpKernelConstruction *);
  void (*compute)(void *, TF_OpKernelContext *);
  void (*destroy)(void *);
};

struct TF_OpKernelConstruction {
  const tfc_node *node;
  tfc_status *status;
};

typedef struct instance {
  const TF_KernelBuilder *b;
  void *user;
} instance;

static tfc_kernel_ctx *ctx_of(TF_OpKernelContext *c) { return (tfc_kernel_ctx *)c; }

/* ---- the bridges ---- */

static int bridge_init(const tfc_node *n, void **state, tfc_status *s) {
  const tfc_user_kernel *row = tfc_user_kernel_for_node(n);
  if (!row) return tfc_status_set(s, TFC_INTERNAL, "no registered kernel for user op %s", n->op->name);
  instance *in = calloc(1, sizeof *in);
  if (!in) return TFC_OOM(s);
  in->b = row->user;
  if (in->b->create) {
    TF_OpKernelConstruction c = {n, s};
    in->user = in->b->create(&c);
  }
  if (!tfc_status_ok(s)) {
    if (in->b->destroy) in->b->destroy(in->user);
    free(in);
    return s->code;
  }
  *state = in;
  return TFC_OK;
}

static int bridge_compute(tfc_kernel_ctx *c) {
  instance *in = c->state;
  if (in->b->compute) in->b->compute(in->user, (TF_OpKernelContext *)c);
  return c->status->code;
}

static void bridge_free(void *state) {
  instance *in = state;
  if (!in) return;
  if (in->b->destroy) in->b->destroy(in->user);
  free(in);
}

/* ---- builders ---- */

static void row_free(tfc_user_kernel *k) {
  if (!k) return;
  free(k->op_name);
  free(k->device_type);
  for (int i = 0; i < k->n_constraints; i++) free(k->constraint_attrs[i]);
  free(k->constraint_attrs);
  free(k->constraint_types);
  for (int i = 0; i < k->n_host_args; i++) free(k->host_args[i]);
  free(k->host_args);
  free(k);
}

TFC_EXPORT TF_KernelBuilder *TF_NewKernelBuilder(const char *op_name, const char *device_name,
                                                 void *(*create_func)(TF_OpKernelConstruction *),
                                                 void (*compute_func)(void *, TF_OpKernelContext *),
                                                 void (*delete_func)(void *)) {
  TF_KernelBuilder *b = calloc(1, sizeof *b);
  tfc_user_kernel *k = calloc(1, sizeof *k);
  if (!b || !k || !(k->op_name = tfc_strdup(op_name ? op_name : "")) ||
      !(k->device_type = tfc_strdup(device_name ? device_name : "CPU"))) {
    row_free(k);
    free(b);
    return NULL;
  }
  k->def.op = -1;
  k->def.init = bridge_init;
  k->def.compute = bridge_compute;
  k->def.free_state = bridge_free;
  k->user = b;
  b->row = k;
  b->create = create_func;
  b->compute = compute_func;
  b->destroy = delete_func;
  return b;
}

TFC_EXPORT void TF_DeleteKernelBuilder(TF_KernelBuilder *b) {
  if (!b) return;
  row_free(b->row);
  free(b);
}

TFC_EXPORT void TF_KernelBuilder_TypeConstraint(TF_KernelBuilder *b, const char *attr_name, const TF_DataType type,
                                                TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!b || !attr_name || !tfc_dtype_valid((int)type)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_KernelBuilder_TypeConstraint: %s",
                   !b ? "builder is NULL" : !attr_name ? "attr_name is NULL" : "not a valid data type");
    return;
  }
  tfc_user_kernel *k = b->row;
  char **na = realloc(k->constraint_attrs, sizeof *na * (size_t)(k->n_constraints + 1));
  if (na) k->constraint_attrs = na;
  int *nt = na ? realloc(k->constraint_types, sizeof *nt * (size_t)(k->n_constraints + 1)) : NULL;
  if (nt) k->constraint_types = nt;
  char *name = nt ? tfc_strdup(attr_name) : NULL;
  if (!name) {
    TFC_OOM(s);
    return;
  }
  na[k->n_constraints] = name;
  nt[k->n_constraints] = (int)type;
  k->n_constraints++;
}

/* Recorded for the kernel's KernelDef (TF_GetRegisteredKernelsForOp); on the CPU every
 * argument is in host memory already. */
TFC_EXPORT void TF_KernelBuilder_HostMemory(TF_KernelBuilder *b, const char *arg_name) {
  if (!b || !arg_name) return;
  tfc_user_kernel *k = b->row;
  char **na = realloc(k->host_args, sizeof *na * (size_t)(k->n_host_args + 1));
  if (!na) return;
  k->host_args = na;
  if ((na[k->n_host_args] = tfc_strdup(arg_name))) k->n_host_args++;
}

TFC_EXPORT void TF_RegisterKernelBuilder(const char *kernel_name, TF_KernelBuilder *b, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  (void)kernel_name; /* TF uses it only to name the registration */
  if (!b) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_RegisterKernelBuilder: builder is NULL");
  else if (tfc_user_kernel_add(b->row, s) != TFC_OK) TF_DeleteKernelBuilder(b);
  if (!tfc_status_ok(s)) tfc_capi_library_note_error(s);
  tfc_status_fini(&scratch);
}

/* ---- compute context ---- */

TFC_EXPORT int TF_NumInputs(TF_OpKernelContext *ctx) { return ctx_of(ctx)->n_inputs; }

TFC_EXPORT int TF_NumOutputs(TF_OpKernelContext *ctx) { return ctx_of(ctx)->n_outputs; }

TFC_EXPORT void TF_GetInput(TF_OpKernelContext *ctx, int i, TF_Tensor **tensor, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_kernel_ctx *c = ctx_of(ctx);
  if (i < 0 || i >= c->n_inputs) {
    tfc_status_set(s, TFC_OUT_OF_RANGE, "input index out of range");
    return;
  }
  TF_Tensor *t = tfc_capi_tensor_out(c->inputs[i], s);
  if (t) *tensor = t;
}

TFC_EXPORT void TF_SetOutput(TF_OpKernelContext *ctx, int i, const TF_Tensor *tensor, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_kernel_ctx *c = ctx_of(ctx);
  if (i < 0 || i >= c->n_outputs) {
    tfc_status_set(s, TFC_OUT_OF_RANGE, "output index out of range");
    return;
  }
  int want = tfc_dtype_base(c->node->output_types[i]);
  if (!tensor || tensor->dtype != want) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "output %d of %s must be %s, got %s", i, c->node->op->name,
                   tfc_dtype_name(want), tensor ? tfc_dtype_name(tensor->dtype) : "NULL");
    return;
  }
  tfc_tensor *t = tfc_capi_tensor_in(tensor, s);
  if (t) tfc_kernel_set_output(c, i, t);
}

TFC_EXPORT void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction *ctx, TF_Status *status) {
  if (status && !tfc_status_ok(&status->s)) tfc_status_set(ctx->status, status->s.code, "%s", tfc_status_msg(&status->s));
}

TFC_EXPORT void TF_OpKernelContext_Failure(TF_OpKernelContext *ctx, TF_Status *status) {
  if (status && !tfc_status_ok(&status->s))
    tfc_status_set(ctx_of(ctx)->status, status->s.code, "%s", tfc_status_msg(&status->s));
}

TFC_EXPORT TF_DataType TF_ExpectedOutputDataType(TF_OpKernelContext *ctx, int i) {
  tfc_kernel_ctx *c = ctx_of(ctx);
  return i >= 0 && i < c->n_outputs ? (TF_DataType)tfc_dtype_base(c->node->output_types[i]) : (TF_DataType)0;
}

TFC_EXPORT int64_t TF_StepId(TF_OpKernelContext *ctx) { return ctx_of(ctx)->step_id; }

TFC_EXPORT TF_Tensor *TF_AllocateOutput(TF_OpKernelContext *context, int index, TF_DataType dtype,
                                        const int64_t *dims, int num_dims, size_t len, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_kernel_ctx *c = ctx_of(context);
  if (index < 0 || index >= c->n_outputs) {
    tfc_status_set(s, TFC_OUT_OF_RANGE, "output index out of range");
    return NULL;
  }
  if (num_dims < 0 || num_dims > TFC_MAX_DIMS || (num_dims > 0 && !dims) || !tfc_dtype_valid((int)dtype)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_AllocateOutput: bad dtype or dims for output %d", index);
    return NULL;
  }
  int64_t n = tfc_dims_num_elements(dims, num_dims);
  if (n < 0 || (dtype != TF_STRING && (size_t)n * tfc_dtype_size((int)dtype) != len)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_AllocateOutput: len %zu is not the byte size of output %d", len,
                   index);
    return NULL;
  }
  tfc_tensor *t = tfc_kernel_alloc_output(c, index, (int)dtype, dims, num_dims);
  if (!t) { /* the step fails with the allocation's error; the caller sees it too */
    tfc_status_set(s, c->status->code ? c->status->code : TFC_RESOURCE_EXHAUSTED, "%s", tfc_status_msg(c->status));
    return NULL;
  }
  return tfc_capi_tensor_out(t, s);
}

/* ---- construction context: the node's attrs ---- */

static const tfc_attr_value *kattr(TF_OpKernelConstruction *ctx, const char *name, int kind, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_node *n = ctx->node;
  return tfc_capi_typed_attr(n->attrs, n->n_attrs, n->name, name, kind, 0, s);
}

TFC_EXPORT void TF_OpKernelConstruction_GetAttrType(TF_OpKernelConstruction *ctx, const char *attr_name,
                                                    TF_DataType *val, TF_Status *status) {
  const tfc_attr_value *v = kattr(ctx, attr_name, TFC_ATTR_TYPE, status);
  if (v) *val = (TF_DataType)v->u.type;
}

TFC_EXPORT void TF_OpKernelConstruction_GetAttrInt32(TF_OpKernelConstruction *ctx, const char *attr_name,
                                                     int32_t *val, TF_Status *status) {
  const tfc_attr_value *v = kattr(ctx, attr_name, TFC_ATTR_INT, status);
  if (!v) return;
  if (v->u.i < INT32_MIN || v->u.i > INT32_MAX) {
    tfc_status_set(&status->s, TFC_INVALID_ARGUMENT, "Attr %s has value %lld out of range for an int32", attr_name,
                   (long long)v->u.i);
    return;
  }
  *val = (int32_t)v->u.i;
}

TFC_EXPORT void TF_OpKernelConstruction_GetAttrInt64(TF_OpKernelConstruction *ctx, const char *attr_name,
                                                     int64_t *val, TF_Status *status) {
  const tfc_attr_value *v = kattr(ctx, attr_name, TFC_ATTR_INT, status);
  if (v) *val = v->u.i;
}

TFC_EXPORT void TF_OpKernelConstruction_GetAttrFloat(TF_OpKernelConstruction *ctx, const char *attr_name,
                                                     float *val, TF_Status *status) {
  const tfc_attr_value *v = kattr(ctx, attr_name, TFC_ATTR_FLOAT, status);
  if (v) *val = v->u.f;
}

TFC_EXPORT void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction *ctx, const char *attr_name,
                                                    unsigned char *val, TF_Status *status) {
  const tfc_attr_value *v = kattr(ctx, attr_name, TFC_ATTR_BOOL, status);
  if (v) *val = (unsigned char)(v->u.b != 0);
}

TFC_EXPORT void TF_OpKernelConstruction_GetAttrString(TF_OpKernelConstruction *ctx, const char *attr_name,
                                                      char *val, size_t max_length, TF_Status *status) {
  const tfc_attr_value *v = kattr(ctx, attr_name, TFC_ATTR_STRING, status);
  if (!v) return;
  size_t n = v->u.s.len < max_length ? v->u.s.len : max_length;
  if (n) memcpy(val, v->u.s.data, n);
}
