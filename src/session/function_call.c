/*
 * function_call — see function_call.h.
 *
 * One lowering is a `lowering` context per function body: the body's FunctionDef decoded once,
 * its nodes added in dependency order (a body's node_def list need not be topological), each
 * body node name mapped to the client node that stands for it.
 */
#include "session/function_call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "proto/attr_codec.h"
#include "tensorflow/function.pb-c.h"

#define MAX_DEPTH 64

typedef struct body_node {
  tfc_node *node;   /* NULL until added */
  char **out_names; /* for a lowered direct call: the function's output arg names */
  int n_out_names;
  int is_call_op;   /* a lowered PartitionedCall: "output:i" is output i */
} body_node;

typedef struct lowering {
  tfc_graph *client;
  const tfc_funclib *lib;
  const char *device; /* the request of the nodes that make none themselves ("": none) */
} lowering;

static tfc_node *lower(const lowering *L, const char *name, const char *fname, const tfc_attr *fattrs,
                       int n_fattrs, const tfc_endpoint *ins, int n_ins, tfc_node *const *ctls, int n_ctls,
                       int depth, char ***out_names, int *n_out_names, tfc_status *s);

static tfc_node *lower_if(const lowering *L, const char *name, const tfc_attr *attrs, int n_attrs,
                          const tfc_endpoint *ins, int n_ins, tfc_node *const *ctls, int n_ctls, int depth,
                          tfc_status *s);

static int is_call_op(const char *op) {
  return strcmp(op, "PartitionedCall") == 0 || strcmp(op, "StatefulPartitionedCall") == 0;
}

static int is_if_op(const char *op) { return strcmp(op, "If") == 0 || strcmp(op, "StatelessIf") == 0; }

static int is_while_op(const char *op) { return strcmp(op, "While") == 0 || strcmp(op, "StatelessWhile") == 0; }

static tfc_node *lower_while(const lowering *L, const char *name, const tfc_attr *attrs, int n_attrs,
                             const tfc_endpoint *ins, int n_ins, tfc_node *const *ctls, int n_ctls, int depth,
                             tfc_status *s);

int tfc_function_is_call(const tfc_funclib *lib, const tfc_node *n) {
  const char *op = n->op->name;
  return is_call_op(op) || is_if_op(op) || is_while_op(op) || tfc_funclib_find(lib, op) != NULL;
}

static tfc_node *finish(const lowering *L, tfc_node_desc *d, tfc_status *s) {
  if (!d) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_node_desc_set_device(d, L->device);
  return tfc_node_desc_finish(d, s);
}

static char *join(const char *a, const char *b) {
  tfc_strbuf sb;
  tfc_strbuf_init(&sb);
  tfc_strbuf_printf(&sb, "%s/%s", a, b);
  return tfc_strbuf_take(&sb);
}

/* Binds placeholder attrs ("$T") from the call's attrs. */
static int bind_placeholders(tfc_attr *attrs, int n, const tfc_attr *fattrs, int n_fattrs, const char *where,
                             tfc_status *s) {
  for (int i = 0; i < n; i++) {
    if (attrs[i].value.kind != TFC_ATTR_PLACEHOLDER) continue;
    const tfc_attr_value *v = tfc_attrs_find(fattrs, n_fattrs, attrs[i].value.u.s.data);
    if (!v)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Node '%s': attr '%s' refers to '$%s', which the call does not set", where,
                            attrs[i].name, attrs[i].value.u.s.data);
    tfc_attr_value c;
    TFC_TRY(tfc_attr_value_copy(v, &c, s));
    tfc_attr_value_fini(&attrs[i].value);
    attrs[i].value = c;
  }
  return TFC_OK;
}

static int find_name(char **names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

static void free_names(char **names, int n) {
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* Resolves a body input ("arg", "node:out_arg:i") to a client endpoint. Returns 1 resolved,
 * 0 not yet (its node is not added), -1 with status on a bad reference. */
static int resolve(const Tensorflow__FunctionDef *fd, tfc_node *const *arg_nodes, const body_node *bn,
                   const char *ref, const char *where, tfc_endpoint *out, tfc_status *s) {
  const Tensorflow__OpDef *sig = fd->signature;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", ref);
  char *c1 = strchr(buf, ':');
  if (!c1) {
    for (size_t i = 0; i < sig->n_input_arg; i++)
      if (strcmp(sig->input_arg[i]->name, buf) == 0) {
        *out = (tfc_endpoint){arg_nodes[i], 0};
        return 1;
      }
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': input '%s' is not an argument of function '%s'", where, ref,
                   sig->name);
    return -1;
  }
  *c1 = 0;
  char *outarg = c1 + 1, *c2 = strchr(outarg, ':');
  long idx = 0;
  if (c2) {
    *c2 = 0;
    idx = strtol(c2 + 1, NULL, 10);
  }
  for (size_t k = 0; k < fd->n_node_def; k++) {
    if (strcmp(fd->node_def[k]->name, buf) != 0) continue;
    const body_node *b = &bn[k];
    if (!b->node) return 0;
    int start = -1, stop = -1;
    if (b->is_call_op) {
      if (strcmp(outarg, "output") == 0) start = 0, stop = b->node->n_outputs;
    } else if (b->out_names) {
      int p = find_name(b->out_names, b->n_out_names, outarg);
      if (p >= 0) start = p, stop = p + 1;
    } else if (tfc_node_output_range(b->node, outarg, &start, &stop) != 0) {
      start = -1;
    }
    if (start < 0 || idx < 0 || start + idx >= stop) break;
    *out = (tfc_endpoint){b->node, (int)(start + idx)};
    return 1;
  }
  tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': input '%s' of function '%s' names no node output", where, ref,
                 sig->name);
  return -1;
}

/* A body node's colocation constraints ("_class" entries "loc:@x") that name a node of the same
 * body name it as lowered, "<prefix>/x", as TF's inliner renames them; others stay. */
static int prefix_colocation(tfc_attr **attrs, int *n_attrs, const Tensorflow__FunctionDef *fd, const char *prefix,
                             tfc_status *s) {
  const tfc_attr_value *cls = tfc_attrs_find(*attrs, *n_attrs, "_class");
  if (!cls || cls->kind != TFC_ATTR_LIST) return TFC_OK;
  tfc_attr_value list = tfc_attr_list(TFC_ATTR_STRING);
  for (int i = 0; i < cls->u.list.n; i++) {
    const char *loc = cls->u.list.items[i].u.s.data;
    int in_body = 0;
    for (size_t k = 0; k < fd->n_node_def && !in_body; k++)
      in_body = strncmp(loc, "loc:@", 5) == 0 && strcmp(loc + 5, fd->node_def[k]->name) == 0;
    char *renamed = in_body ? join(prefix, loc + 5) : NULL;
    tfc_strbuf sb;
    tfc_strbuf_init(&sb);
    tfc_strbuf_printf(&sb, "%s%s", renamed ? "loc:@" : "", renamed ? renamed : loc);
    free(renamed);
    tfc_attr_value item;
    char *text = tfc_strbuf_take(&sb);
    int rc = text ? tfc_attr_string(text, strlen(text), &item, s) : TFC_OOM(s);
    free(text);
    if (rc == TFC_OK) rc = tfc_attr_list_append(&list, &item, s);
    if (rc != TFC_OK) {
      tfc_attr_value_fini(&list);
      return rc;
    }
  }
  return tfc_attrs_set(attrs, n_attrs, "_class", &list, s);
}

/* Adds body node k when its inputs are ready. Returns 1 added, 0 not ready, -1 on error. */
static int add_body_node(const lowering *L, const char *prefix, const Tensorflow__FunctionDef *fd,
                         const tfc_attr *fattrs, int n_fattrs, tfc_node *const *arg_nodes, body_node *bn, size_t k,
                         tfc_node *const *ctls, int n_ctls, int depth, tfc_status *s) {
  const Tensorflow__NodeDef *nd = fd->node_def[k];
  size_t n_in = 0;
  for (size_t j = 0; j < nd->n_input; j++) {
    if (nd->input[j][0] == '^') {
      size_t m = 0;
      while (m < fd->n_node_def && strcmp(fd->node_def[m]->name, nd->input[j] + 1) != 0) m++;
      if (m == fd->n_node_def) {
        tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s/%s': control input '%s' names no node of function '%s'",
                       prefix, nd->name, nd->input[j], fd->signature->name);
        return -1;
      }
      if (!bn[m].node) return 0;
    } else {
      n_in++;
    }
  }
  char *name = join(prefix, nd->name);
  tfc_endpoint *ins = calloc(n_in + 1, sizeof *ins);
  tfc_node **cin = calloc(nd->n_input + (size_t)n_ctls + 1, sizeof *cin);
  tfc_attr *attrs = NULL;
  int n_attrs = 0, rc = 1, n_cin = 0;
  if (!name || !ins || !cin) {
    TFC_OOM(s);
    rc = -1;
    goto out;
  }
  n_in = 0;
  for (size_t j = 0; j < nd->n_input && rc == 1; j++) {
    if (nd->input[j][0] == '^') {
      size_t m = 0;
      while (strcmp(fd->node_def[m]->name, nd->input[j] + 1) != 0) m++;
      cin[n_cin++] = bn[m].node;
    } else {
      rc = resolve(fd, arg_nodes, bn, nd->input[j], name, &ins[n_in++], s);
    }
  }
  if (rc != 1) goto out;
  if (n_in == 0 && n_cin == 0)
    for (int j = 0; j < n_ctls; j++) cin[n_cin++] = ctls[j];
  if (tfc_attrs_from_proto_map((void *const *)nd->attr, nd->n_attr, &attrs, &n_attrs, s) ||
      bind_placeholders(attrs, n_attrs, fattrs, n_fattrs, name, s) ||
      prefix_colocation(&attrs, &n_attrs, fd, prefix, s)) {
    rc = -1;
    goto out;
  }
  body_node *b = &bn[k];
  /* A body node's own device request holds for it and, for a call, for its body. */
  lowering scoped = *L;
  if (nd->device && nd->device[0]) scoped.device = nd->device;
  L = &scoped;
  if (is_if_op(nd->op)) {
    b->is_call_op = 1;
    b->node = lower_if(L, name, attrs, n_attrs, ins, (int)n_in, cin, n_cin, depth + 1, s);
  } else if (is_while_op(nd->op)) {
    b->is_call_op = 1;
    b->node = lower_while(L, name, attrs, n_attrs, ins, (int)n_in, cin, n_cin, depth + 1, s);
  } else if (is_call_op(nd->op) || tfc_funclib_find(L->lib, nd->op)) {
    const char *fname = nd->op;
    const tfc_attr *cattrs = attrs;
    int n_cattrs = n_attrs;
    if (is_call_op(nd->op)) {
      const tfc_attr_value *f = tfc_attrs_find(attrs, n_attrs, "f");
      if (!f || f->kind != TFC_ATTR_FUNC) {
        tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': %s has no func attr 'f'", name, nd->op);
        rc = -1;
        goto out;
      }
      fname = f->u.func->name;
      cattrs = f->u.func->attrs;
      n_cattrs = f->u.func->n_attrs;
      b->is_call_op = 1;
    }
    b->node = lower(L, name, fname, cattrs, n_cattrs, ins, (int)n_in, cin, n_cin, depth + 1,
                    b->is_call_op ? NULL : &b->out_names, &b->n_out_names, s);
  } else {
    char *uname = tfc_graph_unique_name(L->client, name);
    tfc_node_desc *d = uname ? tfc_node_desc_new(L->client, nd->op, uname) : NULL;
    free(uname);
    if (d) {
      for (size_t j = 0; j < n_in; j++) tfc_node_desc_add_input_flat(d, ins[j]);
      for (int j = 0; j < n_cin; j++) tfc_node_desc_add_control(d, cin[j]);
      for (int j = 0; j < n_attrs; j++) tfc_node_desc_set_attr(d, attrs[j].name, &attrs[j].value);
    }
    b->node = finish(L, d, s);
  }
  if (!b->node) rc = -1;
out:
  tfc_attrs_free(attrs, n_attrs);
  free(name);
  free(ins);
  free(cin);
  return rc;
}

static const char *ret_of(const Tensorflow__FunctionDef *fd, const char *arg) {
  for (size_t i = 0; i < fd->n_ret; i++)
    if (strcmp(fd->ret[i]->key, arg) == 0) return fd->ret[i]->value;
  return NULL;
}

static int single_tensor(const Tensorflow__OpDef__ArgDef *a) {
  return !a->number_attr[0] && !a->type_list_attr[0];
}

static tfc_node *lower(const lowering *L, const char *name, const char *fname, const tfc_attr *fattrs,
                       int n_fattrs, const tfc_endpoint *ins, int n_ins, tfc_node *const *ctls, int n_ctls,
                       int depth, char ***out_names, int *n_out_names, tfc_status *s) {
  if (depth > MAX_DEPTH) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': function calls nest deeper than %d (recursive function '%s'?)",
                   name, MAX_DEPTH, fname);
    return NULL;
  }
  const tfc_function *fn = tfc_funclib_find(L->lib, fname);
  if (!fn) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': function '%s' is not defined in the graph's library", name,
                   fname);
    return NULL;
  }
  Tensorflow__FunctionDef *fd = tensorflow__function_def__unpack(NULL, fn->len, fn->def);
  if (!fd || !fd->signature) {
    if (fd) tensorflow__function_def__free_unpacked(fd, NULL);
    tfc_status_set(s, TFC_INTERNAL, "Node '%s': function '%s' does not decode", name, fname);
    return NULL;
  }
  const Tensorflow__OpDef *sig = fd->signature;
  tfc_node *result = NULL;
  tfc_node **arg_nodes = calloc(sig->n_input_arg + 1, sizeof *arg_nodes);
  body_node *bn = calloc(fd->n_node_def + 1, sizeof *bn);
  tfc_endpoint *rets = calloc(sig->n_output_arg + 1, sizeof *rets);
  tfc_node **cret = calloc(fd->n_control_ret + 1, sizeof *cret);
  if (!arg_nodes || !bn || !rets || !cret) {
    TFC_OOM(s);
    goto out;
  }
  if ((size_t)n_ins != sig->n_input_arg) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': function '%s' takes %zu arguments, but the call gives %d",
                   name, fname, sig->n_input_arg, n_ins);
    goto out;
  }
  for (size_t i = 0; i < sig->n_input_arg; i++) {
    if (!single_tensor(sig->input_arg[i])) {
      tfc_status_set(s, TFC_UNIMPLEMENTED, "Node '%s': argument '%s' of function '%s' is a list of tensors", name,
                     sig->input_arg[i]->name, fname);
      goto out;
    }
    char *an = join(name, sig->input_arg[i]->name);
    char *uname = an ? tfc_graph_unique_name(L->client, an) : NULL;
    tfc_node_desc *d = uname ? tfc_node_desc_new(L->client, "Identity", uname) : NULL;
    free(an);
    free(uname);
    if (d) {
      tfc_node_desc_add_input(d, ins[i]);
      for (int j = 0; j < n_ctls; j++) tfc_node_desc_add_control(d, ctls[j]);
    }
    if (!(arg_nodes[i] = finish(L, d, s))) goto out;
  }
  /* Body nodes in dependency order. Input-less ones are gated by the call's control inputs, or
   * else by the first argument, so that they run in the caller's frame (a call in a loop). */
  tfc_node *const *gate = n_ctls || !sig->n_input_arg ? ctls : arg_nodes;
  int n_gate = n_ctls || !sig->n_input_arg ? n_ctls : 1;
  for (size_t done = 0; done < fd->n_node_def;) {
    size_t before = done;
    for (size_t k = 0; k < fd->n_node_def; k++) {
      if (bn[k].node) continue;
      int rc = add_body_node(L, name, fd, fattrs, n_fattrs, arg_nodes, bn, k, gate, n_gate, depth, s);
      if (rc < 0) goto out;
      done += (size_t)rc;
    }
    if (done == before) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': the body of function '%s' has a cycle", name, fname);
      goto out;
    }
  }
  for (size_t i = 0; i < sig->n_output_arg; i++) {
    const char *r = ret_of(fd, sig->output_arg[i]->name);
    if (!single_tensor(sig->output_arg[i]) || !r) {
      tfc_status_set(s, r ? TFC_UNIMPLEMENTED : TFC_INVALID_ARGUMENT,
                     "Node '%s': return '%s' of function '%s' is %s", name, sig->output_arg[i]->name, fname,
                     r ? "a list of tensors" : "not set");
      goto out;
    }
    if (resolve(fd, arg_nodes, bn, r, name, &rets[i], s) != 1) {
      if (tfc_status_ok(s))
        tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': return '%s' of function '%s' is unresolved", name, r,
                       fname);
      goto out;
    }
  }
  int n_cret = 0;
  for (size_t i = 0; i < fd->n_control_ret; i++)
    for (size_t k = 0; k < fd->n_node_def; k++)
      if (strcmp(fd->node_def[k]->name, fd->control_ret[i]->value) == 0) cret[n_cret++] = bn[k].node;
  tfc_node_desc *d = tfc_node_desc_new(L->client, sig->n_output_arg ? "IdentityN" : "NoOp", name);
  if (d) {
    if (sig->n_output_arg) tfc_node_desc_add_input_list(d, rets, (int)sig->n_output_arg);
    for (int j = 0; j < n_cret; j++) tfc_node_desc_add_control(d, cret[j]);
    if (!sig->n_output_arg) /* a call without returns still waits for its body */
      for (size_t k = 0; k < fd->n_node_def; k++) tfc_node_desc_add_control(d, bn[k].node);
  }
  result = finish(L, d, s);
  if (result && out_names) {
    *out_names = calloc(sig->n_output_arg + 1, sizeof **out_names);
    if (!*out_names) {
      TFC_OOM(s);
      result = NULL;
      goto out;
    }
    *n_out_names = (int)sig->n_output_arg;
    for (size_t i = 0; i < sig->n_output_arg; i++)
      if (!((*out_names)[i] = strdup(sig->output_arg[i]->name))) {
        TFC_OOM(s);
        result = NULL;
      }
  }
out:
  if (bn)
    for (size_t k = 0; k < fd->n_node_def; k++) free_names(bn[k].out_names, bn[k].n_out_names);
  free(bn);
  free(arg_nodes);
  free(rets);
  free(cret);
  tensorflow__function_def__free_unpacked(fd, NULL);
  return result;
}

/* A node of op `op` named `name` with the given inputs (and control inputs). */
static tfc_node *add_simple(const lowering *L, const char *op, const char *name, const tfc_endpoint *ins, int n_ins,
                            tfc_node *const *ctls, int n_ctls, tfc_status *s) {
  char *uname = tfc_graph_unique_name(L->client, name);
  tfc_node_desc *d = uname ? tfc_node_desc_new(L->client, op, uname) : NULL;
  free(uname);
  if (d) {
    if (strcmp(op, "Merge") == 0)
      tfc_node_desc_add_input_list(d, ins, n_ins);
    else
      for (int i = 0; i < n_ins; i++) tfc_node_desc_add_input(d, ins[i]);
    for (int i = 0; i < n_ctls; i++) tfc_node_desc_add_control(d, ctls[i]);
  }
  return finish(L, d, s);
}

static tfc_node *add_named(const lowering *L, const char *op, const char *prefix, const char *suffix,
                           const tfc_endpoint *ins, int n_ins, tfc_node *const *ctls, int n_ctls, tfc_status *s) {
  char *nm = join(prefix, suffix);
  if (!nm) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_node *n = add_simple(L, op, nm, ins, n_ins, ctls, n_ctls, s);
  free(nm);
  return n;
}

/* If / StatelessIf as TF's LowerIfOp shapes it: Switch(pred, pred) and its two pivots, a
 * Switch per input (the then branch takes port 1, the else branch port 0), both branches
 * lowered under "<if>/then" and "<if>/else" gated by their pivot, a Merge per output, and an
 * IdentityN (NoOp without outputs) named as the If. The executor's dead tensors skip the
 * branch not taken. */
static tfc_node *lower_if(const lowering *L, const char *name, const tfc_attr *attrs, int n_attrs,
                          const tfc_endpoint *ins, int n_ins, tfc_node *const *ctls, int n_ctls, int depth,
                          tfc_status *s) {
  const tfc_attr_value *br[2] = {tfc_attrs_find(attrs, n_attrs, "else_branch"),
                                 tfc_attrs_find(attrs, n_attrs, "then_branch")};
  if (!br[0] || !br[1] || br[0]->kind != TFC_ATTR_FUNC || br[1]->kind != TFC_ATTR_FUNC || n_ins < 1) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "Node '%s': If needs a cond input and func attrs then_branch and else_branch", name);
    return NULL;
  }
  tfc_endpoint cond = ins[0];
  int cdt = tfc_dtype_base(cond.node->output_types[cond.index]);
  if (cdt != TFC_DT_BOOL) {
    /* TF's truthiness: a scalar is true when nonzero, any other tensor when it is not empty */
    int rank = cond.node->output_shapes[cond.index].rank;
    tfc_node *z = NULL, *v = NULL;
    if (rank == 0 && cdt != TFC_DT_STRING && cdt != TFC_DT_RESOURCE && cdt != TFC_DT_VARIANT) {
      v = cond.node;
      z = add_named(L, "ZerosLike", name, "cond_zero", &cond, 1, NULL, 0, s);
    } else if (rank > 0) {
      v = add_named(L, "Size", name, "cond_size", &cond, 1, NULL, 0, s);
      tfc_endpoint se = {v, 0};
      z = v ? add_named(L, "ZerosLike", name, "cond_zero", &se, 1, NULL, 0, s) : NULL;
    } else {
      tfc_status_set(s, TFC_UNIMPLEMENTED,
                     "Node '%s': an If whose cond is a %s of unknown rank, or a string scalar, is not supported", name,
                     tfc_dtype_name(cdt));
      return NULL;
    }
    if (!z) return NULL;
    tfc_endpoint cmp[2] = {{v, v == cond.node ? cond.index : 0}, {z, 0}};
    tfc_node *pred = add_named(L, rank == 0 ? "NotEqual" : "Greater", name, "cond_bool", cmp, 2, NULL, 0, s);
    if (!pred) return NULL;
    cond = (tfc_endpoint){pred, 0};
  }
  tfc_node *result = NULL, *pivot[2] = {NULL, NULL}, *branch[2] = {NULL, NULL};
  tfc_endpoint *bins[2] = {calloc((size_t)n_ins + 1, sizeof(tfc_endpoint)),
                           calloc((size_t)n_ins + 1, sizeof(tfc_endpoint))};
  tfc_endpoint *outs = NULL;
  if (!bins[0] || !bins[1]) {
    TFC_OOM(s);
    goto out;
  }
  tfc_endpoint pp[2] = {cond, cond};
  tfc_node *sw = add_named(L, "Switch", name, "switch_pred", pp, 2, ctls, n_ctls, s);
  if (!sw) goto out;
  for (int b = 0; b < 2; b++) {
    tfc_endpoint in = {sw, b};
    if (!(pivot[b] = add_named(L, "Identity", name, b ? "pivot_t" : "pivot_f", &in, 1, NULL, 0, s))) goto out;
  }
  for (int i = 1; i < n_ins; i++) {
    tfc_endpoint si[2] = {ins[i], cond};
    tfc_node *x = add_named(L, "Switch", name, "input_switch", si, 2, NULL, 0, s);
    if (!x) goto out;
    bins[0][i - 1] = (tfc_endpoint){x, 0};
    bins[1][i - 1] = (tfc_endpoint){x, 1};
  }
  for (int b = 0; b < 2; b++) {
    char *bn = join(name, b ? "then" : "else");
    char **names = NULL;
    int n_names = 0;
    if (bn)
      branch[b] = lower(L, bn, br[b]->u.func->name, br[b]->u.func->attrs, br[b]->u.func->n_attrs, bins[b], n_ins - 1,
                        &pivot[b], 1, depth + 1, &names, &n_names, s);
    else
      TFC_OOM(s);
    free_names(names, n_names);
    free(bn);
    if (!branch[b]) goto out;
  }
  int n_out = branch[1]->n_outputs;
  if (branch[0]->n_outputs != n_out) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': then_branch returns %d values, else_branch %d", name, n_out,
                   branch[0]->n_outputs);
    goto out;
  }
  tfc_endpoint piv[2] = {{pivot[1], 0}, {pivot[0], 0}};
  tfc_node *executed = add_named(L, "Merge", name, "branch_executed", piv, 2, NULL, 0, s);
  if (!executed || !(outs = calloc((size_t)n_out + 1, sizeof *outs))) {
    if (executed) TFC_OOM(s);
    goto out;
  }
  for (int i = 0; i < n_out; i++) {
    tfc_endpoint mi[2] = {{branch[1], i}, {branch[0], i}};
    tfc_node *m = add_named(L, "Merge", name, "output", mi, 2, NULL, 0, s);
    if (!m) goto out;
    outs[i] = (tfc_endpoint){m, 0};
  }
  {
    char *uname = tfc_graph_unique_name(L->client, name);
    tfc_node_desc *d = uname ? tfc_node_desc_new(L->client, n_out ? "IdentityN" : "NoOp", uname) : NULL;
    free(uname);
    if (d) {
      if (n_out) tfc_node_desc_add_input_list(d, outs, n_out);
      tfc_node_desc_add_control(d, executed);
    }
    result = finish(L, d, s);
  }
out:
  free(bins[0]);
  free(bins[1]);
  free(outs);
  return result;
}

/* While / StatelessWhile as TF's LowerWhileOp shapes it, in a frame named as the While: per
 * loop variable Enter -> Merge(Enter, NextIteration), the cond function on the Merges (its
 * input-less nodes gated by the first Merge) -> LoopCond, a Switch per variable, the body on
 * the Switches' true outputs (input-less nodes gated by "loop_body_control"), Exit on the false
 * outputs, NextIteration on the body's returns; an IdentityN named as the While reads the
 * Exits. A Merge's back edge is set once its NextIteration exists. */
static tfc_node *lower_while(const lowering *L, const char *name, const tfc_attr *attrs, int n_attrs,
                             const tfc_endpoint *ins, int n_ins, tfc_node *const *ctls, int n_ctls, int depth,
                             tfc_status *s) {
  const tfc_attr_value *cf = tfc_attrs_find(attrs, n_attrs, "cond"), *bf = tfc_attrs_find(attrs, n_attrs, "body");
  const tfc_attr_value *pi = tfc_attrs_find(attrs, n_attrs, "parallel_iterations");
  if (!cf || !bf || cf->kind != TFC_ATTR_FUNC || bf->kind != TFC_ATTR_FUNC) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': While needs func attrs cond and body", name);
    return NULL;
  }
  if (n_ins < 1) {
    tfc_status_set(s, TFC_UNIMPLEMENTED, "Node '%s': a While without loop variables is not supported", name);
    return NULL;
  }
  tfc_node *result = NULL, **merge = calloc((size_t)n_ins, sizeof *merge);
  tfc_endpoint *e = calloc((size_t)n_ins, sizeof *e), *t_outs = calloc((size_t)n_ins, sizeof *t_outs);
  char **names = NULL;
  int n_names = 0;
  if (!merge || !e || !t_outs) {
    TFC_OOM(s);
    goto out;
  }
  for (int i = 0; i < n_ins; i++) {
    char *nm = join(name, "enter");
    char *uname = nm ? tfc_graph_unique_name(L->client, nm) : NULL;
    tfc_node_desc *d = uname ? tfc_node_desc_new(L->client, "Enter", uname) : NULL;
    free(nm);
    free(uname);
    if (d) {
      tfc_attr_value fname, ic = tfc_attr_bool(0), piv = tfc_attr_int(pi && pi->kind == TFC_ATTR_INT ? pi->u.i : 10);
      tfc_node_desc_add_input(d, ins[i]);
      for (int j = 0; j < n_ctls; j++) tfc_node_desc_add_control(d, ctls[j]);
      if (tfc_attr_string(name, strlen(name), &fname, s)) {
        tfc_node_desc_free(d);
        goto out;
      }
      tfc_node_desc_set_attr(d, "frame_name", &fname);
      tfc_node_desc_set_attr(d, "is_constant", &ic);
      tfc_node_desc_set_attr(d, "parallel_iterations", &piv);
    }
    tfc_node *en = finish(L, d, s);
    if (!en) goto out;
    tfc_endpoint mi[2] = {{en, 0}, {en, 0}}; /* input 1 becomes the NextIteration below */
    if (!(merge[i] = add_named(L, "Merge", name, "merge", mi, 2, NULL, 0, s))) goto out;
    e[i] = (tfc_endpoint){merge[i], 0};
  }
  char *cn = join(name, "cond");
  tfc_node *c = cn ? lower(L, cn, cf->u.func->name, cf->u.func->attrs, cf->u.func->n_attrs, e, n_ins, &merge[0], 1,
                           depth + 1, &names, &n_names, s)
                   : NULL;
  free(cn);
  if (!c) goto out;
  if (c->n_outputs != 1 || tfc_dtype_base(c->output_types[0]) != TFC_DT_BOOL) {
    tfc_status_set(s, TFC_UNIMPLEMENTED, "Node '%s': the cond function of a While must return one bool", name);
    goto out;
  }
  tfc_endpoint ce = {c, 0};
  tfc_node *lc = add_named(L, "LoopCond", name, "LoopCond", &ce, 1, NULL, 0, s);
  if (!lc) goto out;
  tfc_node *sw0 = NULL;
  for (int i = 0; i < n_ins; i++) {
    tfc_endpoint si[2] = {e[i], {lc, 0}};
    tfc_node *sw = add_named(L, "Switch", name, "switch", si, 2, NULL, 0, s);
    if (!sw) goto out;
    if (!sw0) sw0 = sw;
    tfc_endpoint f = {sw, 0};
    tfc_node *ex = add_named(L, "Exit", name, "exit", &f, 1, NULL, 0, s);
    if (!ex) goto out;
    e[i] = (tfc_endpoint){sw, 1};
    t_outs[i] = (tfc_endpoint){ex, 0};
  }
  tfc_endpoint bc_in = {sw0, 1};
  tfc_node *bc = add_named(L, "Identity", name, "loop_body_control", &bc_in, 1, NULL, 0, s);
  if (!bc) goto out;
  free_names(names, n_names);
  names = NULL, n_names = 0;
  char *bn = join(name, "body");
  tfc_node *body = bn ? lower(L, bn, bf->u.func->name, bf->u.func->attrs, bf->u.func->n_attrs, e, n_ins, &bc, 1,
                              depth + 1, &names, &n_names, s)
                      : NULL;
  free(bn);
  if (!body) goto out;
  if (body->n_outputs != n_ins) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': the body function returns %d values for %d loop variables",
                   name, body->n_outputs, n_ins);
    goto out;
  }
  for (int i = 0; i < n_ins; i++) {
    tfc_endpoint bo = {body, i};
    tfc_node *nx = add_named(L, "NextIteration", name, "next_iteration", &bo, 1, NULL, 0, s);
    if (!nx) goto out;
    merge[i]->inputs[1] = (tfc_endpoint){nx, 0};
  }
  {
    char *uname = tfc_graph_unique_name(L->client, name);
    tfc_node_desc *d = uname ? tfc_node_desc_new(L->client, "IdentityN", uname) : NULL;
    free(uname);
    if (d) tfc_node_desc_add_input_list(d, t_outs, n_ins);
    result = finish(L, d, s);
  }
out:
  free_names(names, n_names);
  free(merge);
  free(e);
  free(t_outs);
  return result;
}

tfc_node *tfc_function_lower_call(tfc_graph *client, const tfc_funclib *lib, const tfc_node *call,
                                  const tfc_endpoint *ins, tfc_node *const *ctls, int n_ctls, tfc_status *s) {
  lowering L = {client, lib, ""};
  const char *fname = call->op->name;
  const tfc_attr *fattrs = call->attrs;
  int n_fattrs = call->n_attrs;
  if (is_call_op(fname)) {
    const tfc_attr_value *f = tfc_node_attr(call, "f");
    if (!f || f->kind != TFC_ATTR_FUNC) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': %s has no func attr 'f'", call->name, fname);
      return NULL;
    }
    fname = f->u.func->name;
    fattrs = f->u.func->attrs;
    n_fattrs = f->u.func->n_attrs;
  }
  if (is_if_op(fname))
    return lower_if(&L, call->name, call->attrs, call->n_attrs, ins, call->n_inputs, ctls, n_ctls, 0, s);
  if (is_while_op(fname))
    return lower_while(&L, call->name, call->attrs, call->n_attrs, ins, call->n_inputs, ctls, n_ctls, 0, s);
  char **names = NULL;
  int n_names = 0;
  tfc_node *n = lower(&L, call->name, fname, fattrs, n_fattrs, ins, call->n_inputs, ctls, n_ctls, 0, &names,
                      &n_names, s);
  free_names(names, n_names);
  return n;
}
