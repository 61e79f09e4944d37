/*
 * fuse_conv — remapping a convolution and what follows it into one node (see optimize.h), as
 * TF's grappler remapper does on the CPU:
 *
 *   Conv2D / DepthwiseConv2dNative (P), then BiasAdd(P, b) or Add / AddV2 of P and a Const
 *   per output channel ([oc], or ones then oc), optionally a second such Add after a constant
 *   bias (a batch norm's offset after Keras's bias; the constants are summed into a new Const
 *   "<last>/bias"), for Conv2D optionally an Add / AddV2 of that and a tensor r of the same
 *   static shape (a residual connection), then optionally Relu, Relu6, Elu or LeakyRelu
 *     -> _FusedConv2D / _FusedDepthwiseConv2dNative(x, W, b[, r]) with fused_ops
 *        ["BiasAdd"], then "Add" with r, then the activation, named as the last node of the
 *        chain. TF's oneDNN build fuses residual Adds alike; its stock CPU kernel does not, so
 *        a graph rewritten by tfc is meant for tfc's kernels;
 *
 *   MatMul (P) with the same bias and activation (no residual Add) -> _FusedMatMul(a, b, bias);
 *
 *   and before that, Pad(x, paddings) (or PadV2 with a constant 0) feeding input 0 of a
 *   Conv2D or DepthwiseConv2dNative with VALID padding, where paddings is a Const that pads
 *   only H and W -> the convolution with EXPLICIT padding of those amounts reading x.
 *
 * Conditions, so no value other than the removed intermediates' changes: every node but the
 * last of a chain has that chain's next node as its only consumer (not fetched, no control
 * edges out); the later nodes have no control inputs and sit on P's device, a CPU; T is
 * float; data_format NHWC. The last node keeps its name and consumers; it is not fused when
 * nothing consumes it (a target, which pruning keeps by name and op).
 *
 * The fused ops' kernels (device/cpu/kernels_conv.c, kernels_depthwise.c) run the bias and the
 * activation as oneDNN post-ops, which is where the saving is: one pass over the output
 * instead of three.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimize/optimize_int.h"

static int str_attr_is(const tfc_node *n, const char *name, const char *want) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  return v && v->kind == TFC_ATTR_STRING && strcmp(v->u.s.data, want) == 0;
}

static int is_float(const tfc_node *n) {
  int t = 0;
  return tfc_node_attr_type(n, "T", &t) == 0 && t == TFC_DT_FLOAT;
}

/* A float NHWC convolution on a CPU; with fused, also the fused ops (a Pad folds into them). */
static int is_conv(const tfc_node *n, int fused) {
  const char *op = n->op->name;
  int plain = strcmp(op, "Conv2D") == 0 || strcmp(op, "DepthwiseConv2dNative") == 0;
  if (!plain && !(fused && (strcmp(op, "_FusedConv2D") == 0 || strcmp(op, "_FusedDepthwiseConv2dNative") == 0)))
    return 0;
  return (!plain || n->n_inputs == 2) && is_float(n) && str_attr_is(n, "data_format", "NHWC") &&
         tfc_opt_node_on_cpu(n);
}

/* A float MatMul on a CPU. */
static int is_matmul(const tfc_node *n) {
  return strcmp(n->op->name, "MatMul") == 0 && n->n_inputs == 2 && is_float(n) && tfc_opt_node_on_cpu(n);
}

/* P's output channels from its output shape or its Const filter (weights); -1 when unknown. */
static int64_t out_channels(const tfc_node *p) {
  const tfc_shape *sh = &p->output_shapes[0];
  if (strcmp(p->op->name, "MatMul") == 0) {
    if (sh->rank == 2 && sh->dims[1] >= 0) return sh->dims[1];
    const tfc_tensor *w = tfc_opt_const_value(p->inputs[1].node);
    int64_t tb = 0;
    const tfc_attr_value *t = tfc_node_attr(p, "transpose_b");
    if (t && t->kind == TFC_ATTR_BOOL) tb = t->u.b;
    return w && w->ndims == 2 ? w->dims[tb ? 0 : 1] : -1;
  }
  if (sh->rank == 4 && sh->dims[3] >= 0) return sh->dims[3];
  const tfc_tensor *w = tfc_opt_const_value(p->inputs[1].node);
  if (!w || w->ndims != 4) return -1;
  return strcmp(p->op->name, "Conv2D") == 0 ? w->dims[3] : w->dims[2] * w->dims[3];
}

static const char *const acts[] = {"Relu", "Relu6", "Elu", "LeakyRelu"};

/* A chain found at conv node p. */
typedef struct chain {
  int bias_node, act_node; /* ids; act_node -1 when none */
  int bias2_node;          /* a second add of a constant (the batch norm's offset), or -1 */
  int add_node;            /* the residual Add, or -1 */
  tfc_endpoint addend;     /* its other input (src graph) */
  tfc_endpoint bias;       /* the bias tensor (src graph), when taken as it is */
  const tfc_tensor *b[2];  /* constant biases to sum into a new [oc] Const (b[0] set), else NULL */
  int64_t oc;
  const char *act;         /* acts[i] or NULL */
} chain;

/* The constant that node b (Add or AddV2, P's output at input k) adds per channel of oc: a
 * float Const of shape [oc] or ones then oc (rank <= 4). NULL when not. */
static const tfc_tensor *added_const(const tfc_node *b, int k, int64_t oc) {
  if ((strcmp(b->op->name, "Add") != 0 && strcmp(b->op->name, "AddV2") != 0) || b->n_inputs != 2 || !is_float(b) ||
      b->inputs[0].node == b->inputs[1].node)
    return NULL;
  const tfc_tensor *c = tfc_opt_const_value(b->inputs[1 - k].node);
  if (!c || c->dtype != TFC_DT_FLOAT || c->ndims < 1 || c->ndims > 4 || oc < 0 || c->dims[c->ndims - 1] != oc)
    return NULL;
  for (int d = 0; d + 1 < c->ndims; d++)
    if (c->dims[d] != 1) return NULL;
  return c;
}

/* Whether b (an Add or AddV2 reading P's chain at input k) adds a tensor of exactly P's output
 * shape: both static shapes of rank 4 and equal, an unknown batch dim only against another,
 * and b's own output of that shape (no broadcasting). */
static int residual_add(const tfc_node *b, int k, const tfc_node *p) {
  if ((strcmp(b->op->name, "Add") != 0 && strcmp(b->op->name, "AddV2") != 0) || b->n_inputs != 2 || !is_float(b) ||
      b->inputs[0].node == b->inputs[1].node)
    return 0;
  const tfc_shape *o = &p->output_shapes[0], *r = &b->inputs[1 - k].node->output_shapes[b->inputs[1 - k].index],
                  *sum = &b->output_shapes[0];
  if (o->rank != 4 || r->rank != 4 || sum->rank != 4) return 0;
  for (int d = 0; d < 4; d++)
    if (o->dims[d] != r->dims[d] || o->dims[d] != sum->dims[d] || (d > 0 && o->dims[d] < 0)) return 0;
  return 1;
}

/* The chain's last node: the one the fused node replaces. */
static int chain_last(const chain *ch) {
  return ch->act_node >= 0 ? ch->act_node : ch->add_node >= 0 ? ch->add_node : ch->bias2_node >= 0 ? ch->bias2_node : ch->bias_node;
}

static int find_chain(const tfc_graph *g, const int *consumers, const unsigned char *fetched, const tfc_node *p,
                      chain *ch) {
  int k = 0;
  if (!is_conv(p, 0) && !is_matmul(p)) return 0;
  int id = tfc_opt_sole_consumer(g, consumers, fetched, p->id, &k);
  if (id < 0 || !tfc_opt_same_cpu(p, g->nodes[id])) return 0;
  const tfc_node *b = g->nodes[id];
  memset(ch, 0, sizeof *ch);
  ch->oc = out_channels(p);
  if (!is_float(b) || b->n_inputs != 2) return 0;
  if (strcmp(b->op->name, "BiasAdd") == 0) {
    if (k != 0 || !str_attr_is(b, "data_format", "NHWC")) return 0;
    ch->bias = b->inputs[1];
    const tfc_tensor *c = tfc_opt_const_value(b->inputs[1].node);
    if (c && c->dtype == TFC_DT_FLOAT && c->ndims == 1 && c->dims[0] == ch->oc) ch->b[0] = c;
  } else if ((ch->b[0] = added_const(b, k, ch->oc))) {
    ch->bias = b->inputs[1 - k];
  } else {
    return 0;
  }
  ch->bias_node = id;
  ch->bias2_node = -1;
  ch->add_node = -1;
  ch->act_node = -1;
  int a = fetched[id] ? -1 : tfc_opt_sole_consumer(g, consumers, fetched, id, &k);
  /* a second constant add (Keras's BiasAdd, then the batch norm's offset) joins the bias */
  const tfc_tensor *b2 = a >= 0 && ch->b[0] && tfc_opt_same_cpu(p, g->nodes[a]) ? added_const(g->nodes[a], k, ch->oc) : NULL;
  if (b2) {
    ch->b[1] = b2;
    ch->bias2_node = a;
    a = fetched[a] ? -1 : tfc_opt_sole_consumer(g, consumers, fetched, a, &k);
  }
  /* a Const bias already [oc] and alone is used as it is */
  if (!b2 && ch->b[0] && ch->b[0]->ndims == 1) ch->b[0] = NULL;
  if (a >= 0 && strcmp(p->op->name, "Conv2D") == 0 && tfc_opt_same_cpu(p, g->nodes[a]) &&
      residual_add(g->nodes[a], k, p)) {
    ch->add_node = a;
    ch->addend = g->nodes[a]->inputs[1 - k];
    a = fetched[a] ? -1 : tfc_opt_sole_consumer(g, consumers, fetched, a, &k);
  }
  if (a >= 0 && tfc_opt_same_cpu(p, g->nodes[a]) && is_float(g->nodes[a]))
    for (int i = 0; i < 4; i++)
      if (strcmp(g->nodes[a]->op->name, acts[i]) == 0) {
        ch->act_node = a;
        ch->act = acts[i];
      }
  return consumers[chain_last(ch)] > 0; /* a target keeps its own op */
}

/* The Pad that feeds conv p, when it folds into p's padding (pads[8]: EXPLICIT's). */
static int find_pad(const tfc_graph *g, const int *consumers, const unsigned char *fetched, const tfc_node *p,
                    int64_t pads[8]) {
  int k = 0;
  if (!is_conv(p, 1) || !str_attr_is(p, "padding", "VALID")) return -1;
  const tfc_node *pad = p->inputs[0].node;
  int is_v2 = strcmp(pad->op->name, "PadV2") == 0;
  if ((strcmp(pad->op->name, "Pad") != 0 && !is_v2) || p->inputs[0].index != 0 || !is_float(pad) ||
      !tfc_opt_same_cpu(pad, p) || !tfc_opt_same_cpu(p, pad) ||
      tfc_opt_sole_consumer(g, consumers, fetched, pad->id, &k) != p->id)
    return -1;
  if (is_v2) {
    const tfc_tensor *v = tfc_opt_const_value(pad->inputs[2].node);
    if (!v || v->dtype != TFC_DT_FLOAT || v->n_elems != 1 || ((const float *)v->data)[0] != 0.0f) return -1;
  }
  const tfc_tensor *pv = tfc_opt_const_value(pad->inputs[1].node);
  if (!pv || pv->ndims != 2 || pv->dims[0] != 4 || pv->dims[1] != 2) return -1;
  for (int i = 0; i < 8; i++) {
    pads[i] = pv->dtype == TFC_DT_INT32 ? ((const int32_t *)pv->data)[i]
              : pv->dtype == TFC_DT_INT64 ? ((const int64_t *)pv->data)[i]
                                           : -1;
    if (pads[i] < 0 || ((i < 2 || i >= 6) && pads[i] != 0)) return -1;
  }
  return pad->id;
}

/* Attrs of the fused node: P's, with num_args, fused_ops, epsilon and, for LeakyRelu, the
 * activation's alpha. Also the explicit padding of a folded Pad. */
static int fused_attrs(const tfc_node *p, int fuse, int add, const tfc_node *act_node, const char *act,
                       const int64_t *pads, tfc_attr **attrs, int *n_attrs, tfc_status *s) {
  TFC_TRY(tfc_attrs_copy(p->attrs, p->n_attrs, attrs, s));
  *n_attrs = p->n_attrs;
  if (pads) {
    tfc_attr_value pad, list = tfc_attr_list(TFC_ATTR_INT);
    if (tfc_attr_string("EXPLICIT", 8, &pad, s) || tfc_attrs_set(attrs, n_attrs, "padding", &pad, s)) {
      tfc_attr_value_fini(&list);
      return s->code;
    }
    for (int i = 0; i < 8; i++) {
      tfc_attr_value v = tfc_attr_int(pads[i]);
      if (tfc_attr_list_append(&list, &v, s)) {
        tfc_attr_value_fini(&list);
        return s->code;
      }
    }
    TFC_TRY(tfc_attrs_set(attrs, n_attrs, "explicit_paddings", &list, s));
  }
  if (!fuse) return TFC_OK;
  tfc_attr_value num = tfc_attr_int(1 + add), eps = tfc_attr_float(0.0001f), ops = tfc_attr_list(TFC_ATTR_STRING);
  const char *names[3] = {"BiasAdd", add ? "Add" : act, act};
  for (int i = 0; i < 1 + add + (act != NULL); i++) {
    tfc_attr_value v;
    if (tfc_attr_string(names[i], strlen(names[i]), &v, s) || tfc_attr_list_append(&ops, &v, s)) {
      tfc_attr_value_fini(&ops);
      return s->code;
    }
  }
  /* Conv2D's use_cudnn_on_gpu stays; the depthwise op has none to keep. */
  TFC_TRY(tfc_attrs_set(attrs, n_attrs, "num_args", &num, s));
  TFC_TRY(tfc_attrs_set(attrs, n_attrs, "fused_ops", &ops, s));
  TFC_TRY(tfc_attrs_set(attrs, n_attrs, "epsilon", &eps, s));
  if (act && strcmp(act, "LeakyRelu") == 0) {
    const tfc_attr_value *a = tfc_node_attr(act_node, "alpha");
    tfc_attr_value alpha = tfc_attr_float(a && a->kind == TFC_ATTR_FLOAT ? a->u.f : 0.2f);
    TFC_TRY(tfc_attrs_set(attrs, n_attrs, "leakyrelu_alpha", &alpha, s));
  }
  return TFC_OK;
}

/* Makes the rewritten convolution in c: op `op` named `name`, inputs x (src endpoint), P's
 * other inputs and, when fusing, the bias (a dst endpoint) and the addend (a src endpoint, or
 * NULL); P's control inputs. NULL with status. */
static tfc_node *make_conv(tfc_opt_copy *c, const tfc_node *p, const char *name, const tfc_opdef *op,
                           tfc_endpoint x, const tfc_endpoint *bias, const tfc_endpoint *addend, tfc_attr *attrs,
                           int n_attrs, tfc_status *s) {
  tfc_endpoint ins[4] = {tfc_opt_mapped(c, x)};
  int n_in = 1;
  for (int j = 1; j < p->n_inputs && n_in < 3; j++) ins[n_in++] = tfc_opt_mapped(c, p->inputs[j]);
  if (bias) ins[n_in++] = *bias;
  if (addend) ins[n_in++] = tfc_opt_mapped(c, *addend);
  tfc_node *ctl_small[8], **ctls = p->n_control_inputs <= 8 ? ctl_small : malloc(sizeof *ctls * (size_t)p->n_control_inputs);
  if (!ctls) {
    TFC_OOM(s);
    return NULL;
  }
  int n_ctl = 0;
  for (int j = 0; j < p->n_control_inputs; j++)
    if (c->ctl[p->control_inputs[j]->id]) ctls[n_ctl++] = c->ctl[p->control_inputs[j]->id];
  tfc_node *n = tfc_graph_add_raw(c->dst, name, op, p->device, p->assigned_device, ins, n_in, ctls, n_ctl,
                                  attrs, n_attrs, s);
  if (ctls != ctl_small) free(ctls);
  return n;
}

/* A new Const "<last>/bias" in dst of shape [oc], the sum of ch's constant biases. {NULL, 0}
 * with status. */
static tfc_endpoint bias_const(tfc_opt_copy *c, const tfc_node *p, const tfc_node *last, const chain *ch,
                               tfc_status *s) {
  int64_t dims[1] = {ch->oc};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, dims, 1, s);
  if (!t) return (tfc_endpoint){NULL, 0};
  float *v = t->data;
  for (int i = 0; i < 2; i++)
    for (int64_t j = 0; j < ch->oc && ch->b[i]; j++) v[j] = (i ? v[j] : 0.0f) + ((const float *)ch->b[i]->data)[j];
  size_t len = strlen(last->name) + 8;
  char *name = malloc(len);
  tfc_node *k = NULL;
  if (name) {
    snprintf(name, len, "%s/bias", last->name);
    k = tfc_opt_add_const(c, name, p, t, s);
    free(name);
  } else {
    TFC_OOM(s);
  }
  tfc_tensor_unref(t);
  return (tfc_endpoint){k, 0};
}

int tfc_opt_fuse_conv(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s) {
  *out = NULL;
  int n = g->n_nodes, n_rewrites = 0;
  int *consumers = NULL;
  unsigned char *fetched = NULL;
  TFC_TRY(tfc_opt_edges(g, &consumers, &fetched, s));
  /* role: for a conv P, chains[P] / pad_of[P]; for a node folded away, owner[id] = P + 1 */
  chain *chains = calloc((size_t)n + 1, sizeof *chains);
  int *owner = calloc((size_t)n + 1, sizeof *owner), *pad_of = calloc((size_t)n + 1, sizeof *pad_of);
  unsigned char *fused = calloc((size_t)n + 1, 1);
  int64_t(*pads)[8] = calloc((size_t)n + 1, sizeof *pads);
  if (!chains || !owner || !pad_of || !fused || !pads) {
    TFC_OOM(s);
    goto out;
  }
  for (int id = 0; id < n; id++) {
    const tfc_node *p = g->nodes[id];
    if (owner[id]) continue;
    if (p->n_inputs > 3) continue; /* a fused node with more args than a bias */
    int pad = o->pad_folding ? find_pad(g, consumers, fetched, p, pads[id]) : -1;
    if (pad >= 0 && !owner[pad]) {
      pad_of[id] = pad + 1;
      owner[pad] = id + 1;
      n_rewrites++;
    }
    chain ch;
    int found = o->remapping && find_chain(g, consumers, fetched, p, &ch);
    if (found && ch.add_node >= 0 && owner[ch.add_node]) { /* the other branch took the Add */
      ch.add_node = ch.act_node = -1;
      ch.act = NULL;
    }
    if (found && !owner[ch.bias_node] && (ch.act_node < 0 || !owner[ch.act_node]) &&
        (ch.bias2_node < 0 || !owner[ch.bias2_node])) {
      chains[id] = ch;
      fused[id] = 1;
      owner[ch.bias_node] = id + 1;
      if (ch.act_node >= 0) owner[ch.act_node] = id + 1;
      if (ch.bias2_node >= 0) owner[ch.bias2_node] = id + 1;
      if (ch.add_node >= 0) owner[ch.add_node] = id + 1;
      n_rewrites++;
    }
  }
  if (!n_rewrites) goto out;
  tfc_opt_copy c;
  if (tfc_opt_copy_init(&c, g, s)) goto out;
  const tfc_opdef *fused_conv = tfc_op_lookup("_FusedConv2D"), *fused_dw = tfc_op_lookup("_FusedDepthwiseConv2dNative"),
                  *fused_mm = tfc_op_lookup("_FusedMatMul");
  for (int id = 0; id < n && tfc_status_ok(s); id++) {
    const tfc_node *nd = g->nodes[id];
    int p = owner[id] - 1;
    if (p < 0 && !fused[id] && !pad_of[id]) {
      tfc_opt_copy_node(&c, nd, NULL, s);
      continue;
    }
    if (p >= 0 && pad_of[p] - 1 == id) continue; /* a folded Pad: its conv reads its input */
    const tfc_node *pn = p >= 0 ? g->nodes[p] : nd;
    const chain *ch = &chains[pn->id];
    int last = fused[pn->id] ? chain_last(ch) : pn->id;
    if (id != last) continue; /* made at the chain's last node, whose inputs all precede it */
    tfc_attr *attrs = NULL;
    int n_attrs = 0;
    int has_pad = pad_of[pn->id] > 0;
    tfc_endpoint x = has_pad ? g->nodes[pad_of[pn->id] - 1]->inputs[0] : pn->inputs[0];
    const tfc_opdef *op = !fused[pn->id]                        ? pn->op
                          : strcmp(pn->op->name, "Conv2D") == 0 ? fused_conv
                          : strcmp(pn->op->name, "MatMul") == 0 ? fused_mm
                                                                : fused_dw;
    tfc_node *m = NULL;
    tfc_endpoint bias = {NULL, 0};
    if (fused[pn->id]) bias = ch->b[0] ? bias_const(&c, pn, nd, ch, s) : tfc_opt_mapped(&c, ch->bias);
    if (fused[pn->id] && !bias.node) break;
    int add = fused[pn->id] && ch->add_node >= 0;
    if (!fused_attrs(pn, fused[pn->id], add, g->nodes[last], ch->act, has_pad ? pads[pn->id] : NULL, &attrs, &n_attrs,
                     s))
      m = make_conv(&c, pn, nd->name, op, x, fused[pn->id] ? &bias : NULL, add ? &ch->addend : NULL, attrs, n_attrs, s);
    tfc_attrs_free(attrs, n_attrs);
    if (!m) break;
    m->output_shapes[0] = nd->output_shapes[0];
    tfc_endpoint to = {m, 0};
    tfc_opt_map(&c, nd, &to, m);
  }
  if (tfc_status_ok(s)) {
    tfc_opt_copy_finish(&c);
    *out = c.dst;
    c.dst = NULL;
  }
  tfc_opt_copy_fini(&c);
out:
  free(chains);
  free(owner);
  free(pad_of);
  free(fused);
  free(pads);
  free(consumers);
  free(fetched);
  return s->code;
}
