/*
 * kernels_sendrecv — the kernels of the transfer ops the partitioner puts on cut edges, for
 * CPU and GPU devices alike: _Send leaves its input in the step's rendezvous, _Recv
 * (asynchronous) picks it up.
 *
 * In one process the rendezvous hands the sent tensor over as is, wherever its bytes are, so
 * the receiving side puts it where its consumer expects it (gpu_copy.h): a CPU _Recv, and
 * every _HostRecv, copies a tensor in device memory to host memory; a GPU _Recv copies a host
 * tensor, or another GPU's, into its own device's memory. The kernel completes when the copy
 * is done. On a CPU device the _HostSend/_HostRecv forms are the plain ones (its memory is
 * host memory); on a GPU they keep the tensor in host memory (host-memory masks), which the
 * partitioner uses for int32 shape arguments and strings.
 *
 * The rendezvous key is built once per node at init from the attrs (send_device,
 * send_device_incarnation, recv_device, tensor_name; frame and iteration 0 outside loops),
 * so a step outside loops costs one table operation per transfer. Inside a loop the key ends
 * in the node's frame instance and iteration as the executor gives them (c->frame_id,
 * c->iter_id), so it is built per run.
 *
 * Dead tensors (control flow): the executor runs a _Send whose input is dead with
 * c->is_input_dead set; it sends an empty tensor of its type flagged dead (the rendezvous
 * is_dead flag, which RecvTensor carries between tasks). A _Recv that gets a dead token sets
 * c->is_output_dead and no output, and the executor treats its outputs as dead. So deadness
 * crosses devices, and every _Recv of a loop fires once per iteration, the last one dead.
 */
#include <stdlib.h>

#include "device/cpu/cpu_kernels.h"
#include "device/gpu/gpu_copy.h"
#include "device/gpu/gpu_device.h"
#include "rendezvous/rendezvous.h"

typedef struct transfer {
  char *key;               /* the key outside loops (frame and iteration 0) */
  const char *send_device, *recv_device; /* borrowed from the node, for keys in loops */
  uint64_t incarnation;
  const char *tensor_name; /* borrowed from the node */
  int dtype;               /* _Recv: tensor_type; _Send: T (a dead token's type) */
  int to_device;           /* a GPU _Recv: the output lives in its device's memory */
} transfer;

static void transfer_free(void *p) {
  transfer *t = p;
  if (t) free(t->key);
  free(t);
}

static int transfer_init(const tfc_node *n, const char *type_attr, void **state, tfc_status *s) {
  const char *send_device, *recv_device, *tensor_name;
  int64_t incarnation;
  int dtype;
  TFC_TRY(tfc_kernel_attr_string(n, "send_device", &send_device, s));
  TFC_TRY(tfc_kernel_attr_string(n, "recv_device", &recv_device, s));
  TFC_TRY(tfc_kernel_attr_string(n, "tensor_name", &tensor_name, s));
  TFC_TRY(tfc_kernel_attr_int(n, "send_device_incarnation", &incarnation, s));
  TFC_TRY(tfc_kernel_attr_type(n, type_attr, &dtype, s));
  transfer *t = calloc(1, sizeof *t);
  if (t) t->key = tfc_rendezvous_key(send_device, (uint64_t)incarnation, recv_device, tensor_name, 0, 0);
  if (!t || !t->key) {
    transfer_free(t);
    return TFC_OOM(s);
  }
  t->tensor_name = tensor_name;
  t->send_device = send_device;
  t->recv_device = recv_device;
  t->incarnation = (uint64_t)incarnation;
  t->dtype = dtype;
  *state = t;
  return TFC_OK;
}

static int send_init(const tfc_node *n, void **state, tfc_status *s) {
  return transfer_init(n, "T", state, s);
}

static int recv_init(const tfc_node *n, void **state, tfc_status *s) {
  return transfer_init(n, "tensor_type", state, s);
}

static int gpu_recv_init(const tfc_node *n, void **state, tfc_status *s) {
  TFC_TRY(transfer_init(n, "tensor_type", state, s));
  ((transfer *)*state)->to_device = 1;
  return TFC_OK;
}

static int no_rendezvous(tfc_kernel_ctx *c) {
  return tfc_kernel_error(c, TFC_INTERNAL, "%s of tensor '%s' needs the step's rendezvous, and the step has none",
                          c->node->op->name, ((transfer *)c->state)->tensor_name);
}

/* The key of this run: the cached one outside loops, else a new one the caller frees (*owned).
 * NULL on out of memory. */
static const char *run_key(const tfc_kernel_ctx *c, char **owned) {
  const transfer *t = c->state;
  *owned = NULL;
  if (c->frame_id == 0 && c->iter_id == 0) return t->key;
  *owned = tfc_rendezvous_key(t->send_device, t->incarnation, t->recv_device, t->tensor_name, c->frame_id, c->iter_id);
  return *owned;
}

static int send_compute(tfc_kernel_ctx *c) {
  if (!c->rendezvous) return no_rendezvous(c);
  char *owned;
  const char *key = run_key(c, &owned);
  if (!key) return TFC_OOM(c->status);
  tfc_tensor *t = c->inputs[0], *dead = NULL;
  if (c->is_input_dead) {
    /* The token's value is never read; an empty tensor of the edge's type travels anywhere. */
    int64_t zero = 0;
    if (!(t = dead = tfc_tensor_new(tfc_dtype_base(((transfer *)c->state)->dtype), &zero, 1, c->status))) {
      free(owned);
      return c->status->code;
    }
  }
  int rc = tfc_rendezvous_send(c->rendezvous, key, t, c->is_input_dead, c->status);
  tfc_tensor_unref(dead);
  free(owned);
  return rc;
}

/* The end of a _Recv whose tensor had to change memory. The copy's errors (the allocator's
 * "OOM when allocating tensor ..." text) pass through as they are; the executor names the
 * node. */
static void recv_copied(void *arg, const tfc_status *s, tfc_tensor *out) {
  tfc_kernel_ctx *c = arg;
  if (!tfc_status_ok(s))
    tfc_status_set(c->status, s->code, "%s", tfc_status_msg(s));
  else
    tfc_kernel_set_output(c, 0, out);
  c->done(c);
}

static void recv_done(void *arg, const tfc_status *s, tfc_tensor *t, int is_dead) {
  tfc_kernel_ctx *c = arg;
  const transfer *tr = c->state;
  if (!tfc_status_ok(s)) {
    tfc_status_set(c->status, s->code, "%s", tfc_status_msg(s));
  } else if (is_dead) {
    c->is_output_dead = 1;
    tfc_tensor_unref(t);
  } else if (t->dtype != tr->dtype) {
    tfc_kernel_error(c, TFC_INTERNAL, "%s of tensor '%s' expects %s but received %s", c->node->op->name,
                     tr->tensor_name, tfc_dtype_name(tr->dtype), tfc_dtype_name(t->dtype));
    tfc_tensor_unref(t);
  } else if (tr->to_device) {
    /* Completes through recv_copied, which ends the kernel; t is referenced by the copy. */
    tfc_gpu_copy_to_device(c->device, t, recv_copied, c);
    tfc_tensor_unref(t);
    return;
  } else if (tfc_gpu_tensor_in_device_memory(t)) {
    /* A host copy counts against the receiving device when that is a CPU. */
    tfc_allocator *host = c->device && !tfc_gpu_mem_of(c->device->allocator) ? c->device->allocator : NULL;
    tfc_gpu_copy_to_host(host, t, recv_copied, c);
    tfc_tensor_unref(t);
    return;
  } else {
    tfc_kernel_set_output(c, 0, t);
  }
  c->done(c);
}

static void recv_compute_async(tfc_kernel_ctx *c) {
  if (!c->rendezvous) {
    no_rendezvous(c);
    c->done(c);
    return;
  }
  char *owned;
  const char *key = run_key(c, &owned);
  if (!key) {
    TFC_OOM(c->status);
    c->done(c);
    return;
  }
  tfc_rendezvous_recv_async(c->rendezvous, key, recv_done, c); /* copies the key */
  free(owned);
}

/* No type constraint: every dtype moves, refs included. */
static const tfc_kernel_def defs[] = {
    {.op = TFC_OP__Send, .init = send_init, .compute = send_compute, .free_state = transfer_free},
    {.op = TFC_OP__HostSend, .init = send_init, .compute = send_compute, .free_state = transfer_free},
    {.op = TFC_OP__Recv, .flags = TFC_KF_ASYNC, .init = recv_init, .compute_async = recv_compute_async,
     .free_state = transfer_free},
    {.op = TFC_OP__HostRecv, .flags = TFC_KF_ASYNC, .init = recv_init, .compute_async = recv_compute_async,
     .free_state = transfer_free},
};

int tfc_cpu_kernels_sendrecv(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}

/* The GPU's rows: the _Host forms keep their tensor in host memory. */
static const tfc_kernel_def gpu_defs[] = {
    {.op = TFC_OP__Send, .init = send_init, .compute = send_compute, .free_state = transfer_free},
    {.op = TFC_OP__HostSend, .host_memory_in = TFC_HOST(0), .init = send_init, .compute = send_compute,
     .free_state = transfer_free},
    {.op = TFC_OP__Recv, .flags = TFC_KF_ASYNC, .init = gpu_recv_init, .compute_async = recv_compute_async,
     .free_state = transfer_free},
    {.op = TFC_OP__HostRecv, .host_memory_out = TFC_HOST(0), .flags = TFC_KF_ASYNC, .init = recv_init,
     .compute_async = recv_compute_async, .free_state = transfer_free},
};

int tfc_gpu_kernels_sendrecv(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, gpu_defs, (int)(sizeof gpu_defs / sizeof gpu_defs[0]), s);
}
