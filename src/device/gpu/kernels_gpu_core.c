/*
 * kernels_gpu_core — the GPU kernels every GPU platform has, because none of them runs device
 * code: Const, Identity and its gradient-blocking twins, PlaceholderWithDefault, NoOp,
 * Placeholder, and (from kernels_sendrecv.c) the transfer ops. With them the placer puts
 * these ops on GPU:0 by default, as TF does, and tensors can enter, stay in and leave device
 * memory on any platform, the fake one included.
 *
 * Registrations follow TF 1.15's (constant_op.cc, identity_op.cc, no_op.cc): the numeric and
 * bool dtypes live in device memory; int32 (shapes, indices) and string, resource and variant
 * tensors go through host-memory rows whose arguments stay in host memory, so the
 * partitioner routes them with _HostSend/_HostRecv and they never enter device memory. There
 * is no string Const on a GPU: a string constant stays on the CPU. _Arg and _Retval are not
 * registered: feeds and fetches live on the client device (client_graph.h).
 *
 * Const keeps its value in host memory (the attr) and copies it to device memory on its first
 * compute (kernel init has no device), then hands out that one device tensor for the life of
 * the executor, as TF materializes a GPU constant once when the kernel is built.
 */
#include <pthread.h>
#include <stdlib.h>

#include "device/gpu/gpu_copy.h"
#include "device/gpu/gpu_device.h"

/* TF's GPU number types without int32, and bool: the dtypes GPU kernels hold in device
 * memory. */
#define DEVICE_TYPES                                                                                               \
  (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_BFLOAT16) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) |                     \
   TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_UINT16) | TFC_T(TFC_DT_INT16) | TFC_T(TFC_DT_INT64) |  \
   TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128) | TFC_T(TFC_DT_BOOL))
/* Identity's host-memory row. */
#define HOST_TYPES (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_STRING) | TFC_T(TFC_DT_RESOURCE) | TFC_T(TFC_DT_VARIANT))

/* ---------------- Const ---------------- */

typedef struct const_state {
  pthread_mutex_t mu;
  tfc_tensor *on_device; /* the value in device memory, after the first compute; guarded by mu */
} const_state;

static int const_init(const tfc_node *n, void **state, tfc_status *s) {
  const tfc_attr_value *v = tfc_node_attr(n, "value");
  if (!v || v->kind != TFC_ATTR_TENSOR || !v->u.tensor)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Const '%s' has no tensor value", n->name);
  const_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  pthread_mutex_init(&st->mu, NULL);
  *state = st;
  return TFC_OK;
}

static void const_free(void *p) {
  const_state *st = p;
  if (!st) return;
  tfc_tensor_unref(st->on_device);
  pthread_mutex_destroy(&st->mu);
  free(st);
}

/* The first compute copies (other steps wait for it under the lock); a failed copy (out of
 * device memory) is retried by the next step. */
static int const_compute(tfc_kernel_ctx *c) {
  const_state *st = c->state;
  pthread_mutex_lock(&st->mu);
  if (!st->on_device)
    st->on_device = tfc_gpu_copy_to_device_sync(c->device, tfc_node_attr(c->node, "value")->u.tensor, c->status);
  tfc_tensor *t = tfc_tensor_ref(st->on_device);
  pthread_mutex_unlock(&st->mu);
  if (!t) return c->status->code;
  tfc_kernel_set_output(c, 0, t);
  return TFC_OK;
}

/* int32 constants live in host memory: the attr's tensor itself. */
static int host_const_compute(tfc_kernel_ctx *c) {
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(tfc_node_attr(c->node, "value")->u.tensor));
  return TFC_OK;
}

/* ---------------- identities, placeholders, NoOp ---------------- */

/* Input and output in the same memory (both rows say so): the buffer is shared. */
static int identity_compute(tfc_kernel_ctx *c) {
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[0]));
  return TFC_OK;
}

/* A Placeholder runs only when it was not fed (TF registers it on GPUs so that a placeholder
 * under a GPU device scope places without soft placement). TF's text, as on the CPU. */
static int placeholder_compute(tfc_kernel_ctx *c) {
  int dt = 0;
  tfc_node_attr_type(c->node, "dtype", &dt);
  const tfc_attr_value *sh = tfc_node_attr(c->node, "shape");
  if (sh && sh->kind == TFC_ATTR_SHAPE && sh->u.shape->rank >= 0) {
    char buf[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "You must feed a value for placeholder tensor '%s' with dtype %s and shape %s",
                            c->node->name, tfc_dtype_name(dt), tfc_shape_str(sh->u.shape, buf, sizeof buf));
  }
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "You must feed a value for placeholder tensor '%s' with dtype %s",
                          c->node->name, tfc_dtype_name(dt));
}

static int noop_compute(tfc_kernel_ctx *c) {
  (void)c;
  return TFC_OK;
}

#define IDENTITY_ROWS(OP, ATTR)                                                                                    \
  {.op = OP, .type_attr = ATTR, .types = DEVICE_TYPES, .compute = identity_compute},                              \
      {.op = OP, .type_attr = ATTR, .types = HOST_TYPES, .host_memory_in = TFC_HOST(0),                             \
       .host_memory_out = TFC_HOST(0), .compute = identity_compute}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Const, .type_attr = "dtype", .types = DEVICE_TYPES, .init = const_init, .compute = const_compute,
     .free_state = const_free},
    {.op = TFC_OP_Const, .type_attr = "dtype", .types = TFC_T(TFC_DT_INT32), .host_memory_out = TFC_HOST(0),
     .compute = host_const_compute},
    IDENTITY_ROWS(TFC_OP_Identity, "T"),
    IDENTITY_ROWS(TFC_OP_StopGradient, "T"),
    IDENTITY_ROWS(TFC_OP_PreventGradient, "T"),
    IDENTITY_ROWS(TFC_OP_PlaceholderWithDefault, "dtype"),
    {.op = TFC_OP_Placeholder, .compute = placeholder_compute},
    {.op = TFC_OP_PlaceholderV2, .compute = placeholder_compute},
    {.op = TFC_OP_NoOp, .compute = noop_compute},
};

int tfc_gpu_kernels_core(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s));
  return tfc_gpu_kernels_sendrecv(t, s);
}
