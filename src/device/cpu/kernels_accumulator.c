/*
 * kernels_accumulator — CPU kernels of ops_accumulator.def over state/accumulator.h.
 *
 * The accumulator ops (ConditionalAccumulator, SparseConditionalAccumulator,
 * ResourceConditionalAccumulator) find or create their accumulator in the device's resources
 * as a queue op does: under shared_name when it is set (so the nodes of several graphs, the
 * workers' graphs on one ps task, share it), else under a name private to the node that every
 * executor of the session built for the node finds; container "" is the default one. As TF,
 * a node finding a shared accumulator checks nothing of its own attributes against it. The
 * Ref forms output the string pair [container, name] on a ref edge, which the consumers look
 * up again (as the V1 lookup tables do); the Resource form outputs a resource handle. The node
 * caches its accumulator after the first run. TF registers these kernels for half, float and
 * double only.
 *
 * The consumers first check their dtypes against the accumulator's (TF's "Signature mismatch,
 * have: string_ref, int32->float expected: string_ref, int32->double"), then that their step
 * or num_required is a scalar, then act. The takes block (TFC_KF_BLOCKING) and register with
 * the step's rendezvous, so an aborted step or a closed session wakes them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "device/cpu/cpu_kernels.h"
#include "device/device.h"
#include "graph/graph.h"
#include "ops/opdef.h"
#include "state/accumulator.h"

/* ---------------- the accumulator ops ---------------- */

typedef struct accum_op {
  int sparse, resource, dtype, sum;
  tfc_shape shape;
  const char *container, *shared_name, *node_name;
  _Atomic(tfc_resource *) res;
  char *key; /* the name the accumulator is found under */
} accum_op;

static void accum_op_free(void *p) {
  accum_op *st = p;
  if (!st) return;
  tfc_resource_unref(atomic_load(&st->res));
  free(st->key);
  free(st);
}

static int accum_op_init(const tfc_node *n, void **state, tfc_status *s) {
  accum_op *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  atomic_init(&st->res, NULL);
  st->sparse = n->op->id == TFC_OP_SparseConditionalAccumulator;
  st->resource = n->op->id == TFC_OP_ResourceConditionalAccumulator;
  st->node_name = n->name;
  const char *reduction;
  if (tfc_kernel_attr_type(n, "dtype", &st->dtype, s) || tfc_kernel_attr_string(n, "container", &st->container, s) ||
      tfc_kernel_attr_string(n, "shared_name", &st->shared_name, s) ||
      tfc_kernel_attr_string(n, "reduction_type", &reduction, s)) {
    accum_op_free(st);
    return s->code;
  }
  st->sum = strcmp(reduction, "SUM") == 0;
  const tfc_attr_value *v = tfc_node_attr(n, "shape");
  st->shape = v && v->kind == TFC_ATTR_SHAPE && v->u.shape ? *v->u.shape : tfc_shape_unknown();
  st->key = *st->shared_name ? strdup(st->shared_name) : tfc_resource_private_name(n->name);
  if (!st->key) {
    accum_op_free(st);
    return TFC_OOM(s);
  }
  *state = st;
  return TFC_OK;
}

typedef struct accum_create_args {
  const accum_op *st;
  tfc_resource_mgr *mgr;
} accum_create_args;

/* Runs under the resource manager's lock (see tfc_resource_create_fn). */
static tfc_resource *accum_create(void *arg, tfc_status *s) {
  const accum_create_args *a = arg;
  const accum_op *st = a->st;
  char *name = NULL;
  /* TF's name of a private accumulator, for messages: "_<id>_<node name>". */
  if (!*st->shared_name && asprintf(&name, "_%lld_%s", (long long)tfc_resource_mgr_next_id(a->mgr), st->node_name) < 0) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_accumulator *acc = tfc_accumulator_new(name ? name : st->shared_name, st->sparse, st->dtype, &st->shape, st->sum, s);
  free(name);
  return acc ? tfc_accumulator_resource(acc) : NULL;
}

static int accum_op_compute(tfc_kernel_ctx *c) {
  accum_op *st = c->state;
  tfc_resource *r = atomic_load_explicit(&st->res, memory_order_acquire);
  if (!r) {
    r = tfc_resource_mgr_lookup_or_create(c->device->resources, st->container, st->key, &tfc_accumulator_kind,
                                          accum_create, &(accum_create_args){st, c->device->resources}, c->status);
    if (!r) return c->status->code;
    tfc_resource *expected = NULL;
    if (!atomic_compare_exchange_strong(&st->res, &expected, r)) { /* another step got there first */
      tfc_resource_unref(r);
      r = expected;
    }
  }
  if (st->resource) {
    tfc_tensor *h = tfc_resource_handle_new(r, c->status);
    if (!h) return c->status->code;
    tfc_kernel_set_output(c, 0, h);
    return TFC_OK;
  }
  int64_t two = 2;
  tfc_tensor *h = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, &two, 1);
  if (!h) return c->status->code;
  const char *container = *st->container ? st->container : TFC_DEFAULT_CONTAINER;
  TFC_TRY(tfc_tstring_assign(&tfc_tensor_strings(h)[0], container, strlen(container), c->status));
  return tfc_tstring_assign(&tfc_tensor_strings(h)[1], st->key, strlen(st->key), c->status);
}

/* ---------------- the consumers ---------------- */

/* The accumulator behind input 0 as a new reference, or NULL with status. want_sparse: the
 * op's form (-1: either). */
static tfc_accumulator *input_accumulator(tfc_kernel_ctx *c, int want_sparse) {
  const tfc_tensor *h = c->inputs[0];
  tfc_resource *r;
  if (h->dtype == TFC_DT_RESOURCE) {
    r = tfc_resource_from_handle(h, &tfc_accumulator_kind, c->status);
    if (r) tfc_resource_ref(r);
  } else {
    if (h->dtype != TFC_DT_STRING || h->n_elems != 2) {
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Accumulator handle must be a string pair [container, name]");
      return NULL;
    }
    const tfc_tstring *p = tfc_tensor_strings(h);
    char *container = strndup(p[0].data ? p[0].data : "", p[0].len), *name = strndup(p[1].data ? p[1].data : "", p[1].len);
    r = container && name ? tfc_resource_mgr_lookup(c->device->resources, container, name, &tfc_accumulator_kind, c->status)
                          : (TFC_OOM(c->status), NULL);
    free(container);
    free(name);
  }
  if (!r) return NULL;
  tfc_accumulator *a = tfc_accumulator_from_resource(r);
  if (want_sparse >= 0 && tfc_accumulator_is_sparse(a) != want_sparse) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s needs a %s accumulator, but '%s' is %s", c->node->op->name,
                     want_sparse ? "sparse" : "dense", tfc_accumulator_name(a), want_sparse ? "dense" : "sparse");
    tfc_resource_unref(r);
    return NULL;
  }
  return a;
}

static void release(tfc_accumulator *a) { tfc_resource_unref(tfc_accumulator_resource(a)); }

/* TF's MatchSignature: the node's inputs and outputs with every `dtype` argument (dtype_in:
 * input indexes, dtype_out: output indexes, as bit masks) replaced by the accumulator's. */
static int match_signature(tfc_kernel_ctx *c, tfc_accumulator *a, uint32_t dtype_in, uint32_t dtype_out) {
  int dt = tfc_accumulator_dtype(a), same = 1;
  for (int i = 0; i < c->n_inputs; i++) same &= !(dtype_in >> i & 1) || c->node->input_types[i] == dt;
  for (int i = 0; i < c->n_outputs; i++) same &= !(dtype_out >> i & 1) || c->node->output_types[i] == dt;
  if (same) return TFC_OK;
  tfc_strbuf have, want;
  tfc_strbuf_init(&have);
  tfc_strbuf_init(&want);
  for (int i = 0; i < c->n_inputs; i++) {
    tfc_strbuf_printf(&have, "%s%s", i ? ", " : "", tfc_dtype_name(c->node->input_types[i]));
    tfc_strbuf_printf(&want, "%s%s", i ? ", " : "", tfc_dtype_name(dtype_in >> i & 1 ? dt : c->node->input_types[i]));
  }
  tfc_strbuf_puts(&have, "->");
  tfc_strbuf_puts(&want, "->");
  for (int i = 0; i < c->n_outputs; i++) {
    tfc_strbuf_printf(&have, "%s%s", i ? ", " : "", tfc_dtype_name(c->node->output_types[i]));
    tfc_strbuf_printf(&want, "%s%s", i ? ", " : "", tfc_dtype_name(dtype_out >> i & 1 ? dt : c->node->output_types[i]));
  }
  tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Signature mismatch, have: %s expected: %s", tfc_strbuf_str(&have),
                   tfc_strbuf_str(&want));
  tfc_strbuf_fini(&have);
  tfc_strbuf_fini(&want);
  return c->status->code;
}

/* Input i must be a scalar: TF's "Argument <what> must be scalar, but had bad shape [1]". */
static int scalar_arg(tfc_kernel_ctx *c, int i, const char *what) {
  if (c->inputs[i]->ndims == 0) return TFC_OK;
  char buf[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Argument %s must be scalar, but had bad shape %s", what,
                          tfc_tensor_shape_str(c->inputs[i], buf, sizeof buf));
}

static int apply_compute(tfc_kernel_ctx *c) {
  tfc_accumulator *a = input_accumulator(c, 0);
  if (!a) return c->status->code;
  if (!match_signature(c, a, 1u << 2, 0) && !scalar_arg(c, 1, "local_step"))
    tfc_accumulator_apply(a, *(const int64_t *)c->inputs[1]->data, c->inputs[2], c->status);
  release(a);
  return c->status->code;
}

static int sparse_apply_compute(tfc_kernel_ctx *c) {
  tfc_accumulator *a = input_accumulator(c, 1);
  if (!a) return c->status->code;
  int known = 0;
  tfc_node_attr_bool(c->node, "has_known_shape", &known);
  if (!match_signature(c, a, 1u << 3, 0) && !scalar_arg(c, 1, "local_step"))
    tfc_accumulator_apply_sparse(a, *(const int64_t *)c->inputs[1]->data, c->inputs[2], c->inputs[3],
                                 known ? c->inputs[4] : NULL, c->status);
  release(a);
  return c->status->code;
}

static int take_compute(tfc_kernel_ctx *c) {
  tfc_accumulator *a = input_accumulator(c, 0);
  if (!a) return c->status->code;
  if (!match_signature(c, a, 0, 1u << 0) && !scalar_arg(c, 1, "num_required")) {
    tfc_queue_cancel cx;
    tfc_queue_cancel_init(&cx, c->rendezvous, c->node->name);
    tfc_tensor *out;
    if (tfc_accumulator_take(a, *(const int32_t *)c->inputs[1]->data, &cx, &out, c->status) == TFC_OK)
      tfc_kernel_set_output(c, 0, out);
    tfc_queue_cancel_fini(&cx);
  }
  release(a);
  return c->status->code;
}

static int sparse_take_compute(tfc_kernel_ctx *c) {
  tfc_accumulator *a = input_accumulator(c, 1);
  if (!a) return c->status->code;
  if (!match_signature(c, a, 0, 1u << 1) && !scalar_arg(c, 1, "num_required")) {
    tfc_queue_cancel cx;
    tfc_queue_cancel_init(&cx, c->rendezvous, c->node->name);
    tfc_tensor *ix, *v, *sh;
    if (tfc_accumulator_take_sparse(a, *(const int32_t *)c->inputs[1]->data, &cx, &ix, &v, &sh, c->status) == TFC_OK) {
      tfc_kernel_set_output(c, 0, ix);
      tfc_kernel_set_output(c, 1, v);
      tfc_kernel_set_output(c, 2, sh);
    }
    tfc_queue_cancel_fini(&cx);
  }
  release(a);
  return c->status->code;
}

static int num_accumulated_compute(tfc_kernel_ctx *c) {
  tfc_accumulator *a = input_accumulator(c, -1);
  if (!a) return c->status->code;
  tfc_tensor *t = tfc_kernel_alloc_output(c, 0, TFC_DT_INT32, NULL, 0);
  if (t) *(int32_t *)t->data = tfc_accumulator_num_accumulated(a);
  release(a);
  return c->status->code;
}

static int set_global_step_compute(tfc_kernel_ctx *c) {
  tfc_accumulator *a = input_accumulator(c, -1);
  if (!a) return c->status->code;
  /* TF's text names num_required here too. */
  if (!scalar_arg(c, 1, "num_required")) tfc_accumulator_set_global_step(a, *(const int64_t *)c->inputs[1]->data);
  release(a);
  return c->status->code;
}

/* Every argument lives in host memory (there are no device kernels). */
#define FLOATS (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define ACCUM_OP(name)                                                                                        \
  {.op = TFC_OP_##name, .type_attr = "dtype", .types = FLOATS, .host_memory_out = TFC_HOST_ALL, .init = accum_op_init, \
   .compute = accum_op_compute, .free_state = accum_op_free}
#define CONSUMER(name, fn, fl) \
  {.op = TFC_OP_##name, .host_memory_in = TFC_HOST_ALL, .host_memory_out = TFC_HOST_ALL, .flags = (fl), .compute = (fn)}

static const tfc_kernel_def accumulator_kernels[] = {
    ACCUM_OP(ConditionalAccumulator),
    ACCUM_OP(SparseConditionalAccumulator),
    ACCUM_OP(ResourceConditionalAccumulator),
    CONSUMER(AccumulatorApplyGradient, apply_compute, 0),
    CONSUMER(ResourceAccumulatorApplyGradient, apply_compute, 0),
    CONSUMER(SparseAccumulatorApplyGradient, sparse_apply_compute, 0),
    CONSUMER(AccumulatorTakeGradient, take_compute, TFC_KF_BLOCKING),
    CONSUMER(ResourceAccumulatorTakeGradient, take_compute, TFC_KF_BLOCKING),
    CONSUMER(SparseAccumulatorTakeGradient, sparse_take_compute, TFC_KF_BLOCKING),
    CONSUMER(AccumulatorNumAccumulated, num_accumulated_compute, 0),
    CONSUMER(ResourceAccumulatorNumAccumulated, num_accumulated_compute, 0),
    CONSUMER(AccumulatorSetGlobalStep, set_global_step_compute, 0),
    CONSUMER(ResourceAccumulatorSetGlobalStep, set_global_step_compute, 0),
};

int tfc_cpu_kernels_accumulator(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, accumulator_kernels, (int)(sizeof accumulator_kernels / sizeof accumulator_kernels[0]),
                              s);
}
