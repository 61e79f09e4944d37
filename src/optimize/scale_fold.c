/*
 * scale_fold — folding a per-output-channel scale into the weights before it (see
 * optimize.h): Mul(P, C) or Mul(C, P), where P is a float Conv2D (NHWC), DepthwiseConv2dNative
 * or MatMul whose weights (input 1) are a Const node and C is a Const node that scales each
 * output channel (a scalar, or a shape of ones ending in the channel count, no longer than P's
 * rank), becomes P' with weights W * C, under P's name, and the Mul goes; so does
 * Mul(BiasAdd(P, b), C) with a constant b, into W * C and b * C. This is the
 * multiplicative half of an inference batch norm after constant folding (x * scale + offset);
 * TF's grappler does the same for the folded batch norm of frozen graphs.
 *
 * Conditions, so no value other than the Mul's changes: P's only consumer is the Mul or the
 * BiasAdd, whose only consumer is the Mul (neither is fetched nor read elsewhere); the Mul is
 * not fetched; the BiasAdd and the Mul have no control inputs and sit on P's device, a CPU.
 * Conv2D's weights are HWIO (channel = last dim), the depthwise filter is [kh, kw, in, mult]
 * (channel = in * mult + m, the flat index modulo in * mult), MatMul's are [K, N] or, with
 * transpose_b, [N, K].
 *
 * A scaled weight tensor is a new Const "<P>/scaled_weights" (the original stays while
 * anything else reads it); a fused Relu or Conv2D + BiasAdd fusion is not done here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimize/optimize_int.h"

#define const_value tfc_opt_const_value

/* Output channels of P, and where W's elements' channels are (divisor, modulus): channel of
 * flat index i = (i / div) % mod. 0 when P is not foldable. */
static int64_t channels(const tfc_node *p, const tfc_tensor *w, int64_t *div, int64_t *mod) {
  const char *op = p->op->name;
  *div = 1;
  if (strcmp(op, "Conv2D") == 0) {
    const tfc_attr_value *f = tfc_node_attr(p, "data_format");
    if (!f || f->kind != TFC_ATTR_STRING || strcmp(f->u.s.data, "NHWC") != 0 || w->ndims != 4) return 0;
    *mod = w->dims[3];
  } else if (strcmp(op, "DepthwiseConv2dNative") == 0) {
    const tfc_attr_value *f = tfc_node_attr(p, "data_format");
    if (!f || f->kind != TFC_ATTR_STRING || strcmp(f->u.s.data, "NHWC") != 0 || w->ndims != 4) return 0;
    *mod = w->dims[2] * w->dims[3];
  } else if (strcmp(op, "MatMul") == 0) {
    int tb = 0;
    if (w->ndims != 2 || tfc_node_attr_bool(p, "transpose_b", &tb)) return 0;
    *mod = tb ? w->dims[0] : w->dims[1];
    if (tb) *div = w->dims[1];
  } else {
    return 0;
  }
  return *mod;
}

/* 1 when c scales each of oc channels of an output of rank `rank` without broadcasting it. */
static int per_channel(const tfc_tensor *c, int64_t oc, int rank) {
  if (c->dtype != TFC_DT_FLOAT || c->ndims > rank) return 0;
  if (c->ndims == 0) return 1;
  for (int d = 0; d + 1 < c->ndims; d++)
    if (c->dims[d] != 1) return 0;
  return c->dims[c->ndims - 1] == oc || c->dims[c->ndims - 1] == 1;
}

#define sole_consumer tfc_opt_sole_consumer
#define same_cpu tfc_opt_same_cpu

/* Finds the Mul that scales P, directly or through a BiasAdd with constant biases (*bias:
 * its id, or -1). The Mul's id, or -1. */
static int find(const tfc_graph *g, const int *consumers, const unsigned char *fetched, const tfc_node *p,
                int *scale_in, int *bias) {
  int t = 0, k = 0;
  *bias = -1;
  if (!tfc_opt_node_on_cpu(p) || tfc_node_attr_type(p, "T", &t) || t != TFC_DT_FLOAT || p->n_inputs != 2) return -1;
  const tfc_tensor *w = const_value(p->inputs[1].node);
  int64_t div, mod;
  if (!w || w->dtype != TFC_DT_FLOAT || !channels(p, w, &div, &mod)) return -1;
  int id = sole_consumer(g, consumers, fetched, p->id, &k);
  if (id < 0 || !same_cpu(p, g->nodes[id])) return -1;
  const tfc_node *m = g->nodes[id];
  if (strcmp(m->op->name, "BiasAdd") == 0) {
    const tfc_attr_value *f = tfc_node_attr(m, "data_format");
    const tfc_tensor *b = const_value(m->inputs[1].node);
    if (k != 0 || !f || f->kind != TFC_ATTR_STRING || strcmp(f->u.s.data, "NHWC") != 0 || !b ||
        b->dtype != TFC_DT_FLOAT || b->ndims != 1 || b->dims[0] != mod)
      return -1;
    *bias = id;
    id = sole_consumer(g, consumers, fetched, id, &k);
    if (id < 0 || !same_cpu(p, g->nodes[id])) return -1;
    m = g->nodes[id];
  }
  if (strcmp(m->op->name, "Mul") != 0 || fetched[id] || m->n_inputs != 2 || m->inputs[0].node == m->inputs[1].node) return -1;
  const tfc_tensor *c = const_value(m->inputs[1 - k].node);
  if (!c || !per_channel(c, mod, strcmp(p->op->name, "MatMul") == 0 ? 2 : 4)) return -1;
  *scale_in = 1 - k;
  return id;
}

/* w scaled per channel by c (channel of flat index i: (i / div) % mod). New tensor or NULL. */
static tfc_tensor *scaled(const tfc_tensor *w, const tfc_tensor *c, int64_t div, int64_t mod, tfc_status *s) {
  tfc_tensor *r = tfc_tensor_new(TFC_DT_FLOAT, w->dims, w->ndims, s);
  if (!r) return NULL;
  const float *wv = w->data, *cv = c->data;
  float *rv = r->data;
  int one = c->n_elems == 1;
  for (int64_t i = 0; i < w->n_elems; i++) rv[i] = wv[i] * cv[one ? 0 : (i / div) % mod];
  return r;
}

/* A Const holding the weights (input `input` of n) scaled by c, named <n>/<suffix>. */
static tfc_node *scaled_const(tfc_opt_copy *cp, const tfc_node *n, int input, const char *suffix, const tfc_tensor *c,
                              int64_t div, int64_t mod, tfc_status *s) {
  const tfc_node *wn = n->inputs[input].node;
  tfc_tensor *w2 = scaled(const_value(wn), c, div, mod, s);
  if (!w2) return NULL;
  size_t len = strlen(n->name) + strlen(suffix) + 2;
  char *name = malloc(len);
  tfc_node *k = NULL;
  if (name) {
    snprintf(name, len, "%s/%s", n->name, suffix);
    k = tfc_opt_add_const(cp, name, wn, w2, s);
    free(name);
  } else {
    TFC_OOM(s);
  }
  tfc_tensor_unref(w2);
  return k;
}

int tfc_opt_scale_fold(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s) {
  (void)o;
  *out = NULL;
  int n = g->n_nodes, n_folds = 0;
  int *consumers = NULL;
  unsigned char *fetched = NULL;
  TFC_TRY(tfc_opt_edges(g, &consumers, &fetched, s));
  /* role[id]: 0 copy; for a scaled P: its Mul + 1 in mul[id]; a BiasAdd or Mul on the way:
   * P's id + 1 in from[id] */
  int *mul = calloc((size_t)n + 1, sizeof *mul), *from = calloc((size_t)n + 1, sizeof *from);
  const tfc_tensor **scale = calloc((size_t)n + 1, sizeof *scale);
  if (!mul || !from || !scale) {
    TFC_OOM(s);
    goto out;
  }
  for (int id = 0; id < n; id++) {
    int k, bias, m = find(g, consumers, fetched, g->nodes[id], &k, &bias);
    if (m < 0 || from[id] || from[m] || (bias >= 0 && from[bias])) continue;
    mul[id] = m + 1;
    scale[id] = const_value(g->nodes[m]->inputs[k].node);
    from[m] = id + 1;
    if (bias >= 0) from[bias] = id + 1;
    n_folds++;
  }
  if (!n_folds) goto out;
  tfc_opt_copy c;
  if (tfc_opt_copy_init(&c, g, s)) goto out;
  tfc_node **copy = calloc((size_t)n + 1, sizeof *copy); /* P id -> the last node made for it */
  if (!copy) TFC_OOM(s);
  for (int id = 0; id < n && tfc_status_ok(s); id++) {
    const tfc_node *nd = g->nodes[id];
    int p = from[id] - 1;
    int64_t div = 1, mod = 1;
    if (mul[id] || p >= 0) {
      const tfc_node *pn = g->nodes[mul[id] ? id : p];
      channels(pn, const_value(pn->inputs[1].node), &div, &mod);
    }
    if (mul[id]) { /* P with scaled weights */
      tfc_node *k = scaled_const(&c, nd, 1, "scaled_weights", scale[id], div, mod, s);
      tfc_endpoint ins[2] = {{NULL, 0}, {k, 0}};
      if (k) copy[id] = tfc_opt_copy_node(&c, nd, ins, s);
    } else if (p >= 0 && strcmp(nd->op->name, "BiasAdd") == 0) { /* scaled biases */
      tfc_node *k = scaled_const(&c, nd, 1, "scaled_bias", scale[p], 1, mod, s);
      tfc_endpoint ins[2] = {{NULL, 0}, {k, 0}};
      if (k) copy[p] = tfc_opt_copy_node(&c, nd, ins, s);
    } else if (p >= 0) { /* the folded Mul: its consumers read what P became */
      tfc_endpoint to = {copy[p], 0};
      tfc_opt_map(&c, nd, &to, copy[p]);
    } else {
      tfc_opt_copy_node(&c, nd, NULL, s);
    }
  }
  free(copy);
  if (tfc_status_ok(s)) {
    tfc_opt_copy_finish(&c);
    *out = c.dst;
    c.dst = NULL;
  }
  tfc_opt_copy_fini(&c);
out:
  free(mul);
  free(from);
  free(scale);
  free(consumers);
  free(fetched);
  return s->code;
}
