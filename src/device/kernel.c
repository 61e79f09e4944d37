/* kernel — see kernel.h. */
#include "device/kernel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "device/device.h"
#include "device/user_kernel.h"
#include "state/variable.h"

void tfc_kernel_table_init(tfc_kernel_table *t, const char *device_type) {
  memset(t, 0, sizeof *t);
  t->device_type = device_type;
}

void tfc_kernel_table_fini(tfc_kernel_table *t) {
  free(t->defs);
  memset(t, 0, sizeof *t);
}

int tfc_kernel_table_add(tfc_kernel_table *t, const tfc_kernel_def *defs, int n, tfc_status *s) {
  if (n == 0) return TFC_OK;
  tfc_kernel_def *d = realloc(t->defs, sizeof *d * (size_t)(t->n_defs + n));
  if (!d) return TFC_OOM(s);
  memcpy(d + t->n_defs, defs, sizeof *d * (size_t)n);
  t->defs = d;
  t->n_defs += n;
  return TFC_OK;
}

static int type_ok(const tfc_node *n, const char *attr, uint32_t mask) {
  if (!attr) return 1;
  int dt;
  if (tfc_node_attr_type(n, attr, &dt) != 0) return 0;
  return dt >= 0 && dt < 32 && (mask & TFC_T(dt));
}

static void describe_mask(tfc_strbuf *b, const char *attr, uint32_t mask) {
  tfc_strbuf_printf(b, "; %s in [", attr);
  int first = 1;
  for (int dt = 1; dt < TFC_DT_COUNT; dt++)
    if (mask & TFC_T(dt)) {
      tfc_attr_value v = tfc_attr_type(dt);
      char x[32];
      tfc_attr_value_format(&v, x, sizeof x);
      tfc_strbuf_printf(b, "%s%s", first ? "" : ", ", x);
      first = 0;
    }
  tfc_strbuf_puts(b, "]");
}

const tfc_kernel_def *tfc_kernel_find(const tfc_kernel_table *t, const tfc_node *n, tfc_status *s) {
  int any = 0;
  /* A node naming a library function (its op def's id is TFC_OP_COUNT: graph/function.h) is a
   * call, placed as PartitionedCall is and lowered before it runs. */
  int op_id = n->op->id == TFC_OP_COUNT ? TFC_OP_PartitionedCall : n->op->id;
  /* A user op's kernels were registered at run time (device/user_kernel.h). */
  if (op_id >= TFC_OP_USER_BASE) {
    const tfc_user_kernel *uk = tfc_user_kernel_find(t->device_type, n, &any);
    if (uk) return &uk->def;
  }
  for (int i = 0; i < t->n_defs; i++) {
    const tfc_kernel_def *d = &t->defs[i];
    if (d->op != op_id) continue;
    any = 1;
    if (type_ok(n, d->type_attr, d->types) && type_ok(n, d->type_attr2, d->types2)) return d;
  }
  if (!s) return NULL;
  /* TF: "No OpKernel was registered to support Op 'X' used by {{node n}}with these attrs: [...]" */
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_strbuf_printf(&b, "No OpKernel was registered to support Op '%s' used by {{node %s}}with these attrs: [",
                    n->op->name, n->name);
  int first = 1;
  for (int i = 0; i < n->n_attrs; i++) {
    if (n->attrs[i].name[0] == '_' || n->attrs[i].value.kind == TFC_ATTR_TENSOR) continue;
    char v[256];
    tfc_attr_value_format(&n->attrs[i].value, v, sizeof v);
    tfc_strbuf_printf(&b, "%s%s=%s", first ? "" : ", ", n->attrs[i].name, v);
    first = 0;
  }
  tfc_strbuf_printf(&b, "]\nRegistered devices: [%s]\nRegistered kernels:\n", t->device_type);
  if (!any) tfc_strbuf_puts(&b, "  <no registered kernels>\n");
  for (int i = 0; op_id >= TFC_OP_USER_BASE && i < tfc_user_kernel_count(); i++) {
    const tfc_user_kernel *uk = tfc_user_kernel_at(i);
    if (strcmp(uk->op_name, n->op->name) != 0 || strcmp(uk->device_type, t->device_type) != 0) continue;
    tfc_strbuf_printf(&b, "  device='%s'", t->device_type);
    for (int k = 0; k < uk->n_constraints; k++) {
      tfc_attr_value v = tfc_attr_type(uk->constraint_types[k]);
      char x[32];
      tfc_attr_value_format(&v, x, sizeof x);
      tfc_strbuf_printf(&b, "; %s in [%s]", uk->constraint_attrs[k], x);
    }
    tfc_strbuf_puts(&b, "\n");
  }
  for (int i = 0; i < t->n_defs; i++) {
    const tfc_kernel_def *d = &t->defs[i];
    if (d->op != n->op->id) continue;
    tfc_strbuf_printf(&b, "  device='%s'", t->device_type);
    if (d->type_attr) describe_mask(&b, d->type_attr, d->types);
    if (d->type_attr2) describe_mask(&b, d->type_attr2, d->types2);
    tfc_strbuf_puts(&b, "\n");
  }
  tfc_status_set(s, any ? TFC_INVALID_ARGUMENT : TFC_NOT_FOUND, "%s", tfc_strbuf_str(&b));
  tfc_strbuf_fini(&b);
  return NULL;
}

static int always_host(int dtype) {
  int b = tfc_dtype_base(dtype);
  return b == TFC_DT_STRING || b == TFC_DT_RESOURCE || b == TFC_DT_VARIANT;
}

int tfc_kernel_host_input(const tfc_kernel_def *k, int i, int n_inputs, int dtype) {
  return k->host_memory_in == TFC_HOST_ALL || (i < 32 && (k->host_memory_in >> i & 1u)) ||
         ((k->flags & TFC_KF_HOST_LAST_INPUT) && i == n_inputs - 1) ||
         ((k->flags & TFC_KF_HOST_FIRST_HALF) && i < n_inputs / 2) || always_host(dtype);
}

int tfc_kernel_host_output(uint32_t host_memory_out, int i, int dtype) {
  return host_memory_out == TFC_HOST_ALL || (i < 32 && (host_memory_out >> i & 1u)) || always_host(dtype);
}

tfc_tensor *tfc_kernel_alloc_output(tfc_kernel_ctx *c, int i, int dtype, const int64_t *dims, int ndims) {
  tfc_allocator *a = c->device ? c->device->allocator : NULL;
  if (a && a->ops && tfc_kernel_host_output(c->host_memory_out, i, dtype)) a = NULL; /* host heap */
  tfc_tensor *t = tfc_allocator_tensor(a, dtype, dims, ndims, c->status);
  if (t) tfc_kernel_set_output(c, i, t);
  return t;
}

tfc_tensor *tfc_kernel_forward_or_alloc(tfc_kernel_ctx *c, int in, int i, int dtype, const int64_t *dims,
                                        int ndims) {
  tfc_tensor *x = c->inputs[in];
  if (x && x->dtype == dtype && tfc_tensor_can_forward(x)) {
    int64_t n = tfc_dims_num_elements(dims, ndims);
    if (n == x->n_elems) {
      tfc_tensor *t = (ndims == x->ndims && memcmp(dims, x->dims, sizeof(int64_t) * (size_t)ndims) == 0)
                          ? tfc_tensor_ref(x)
                          : tfc_tensor_reshaped(x, dims, ndims, c->status);
      if (t) tfc_kernel_set_output(c, i, t);
      return t;
    }
  }
  return tfc_kernel_alloc_output(c, i, dtype, dims, ndims);
}

void tfc_kernel_set_output(tfc_kernel_ctx *c, int i, tfc_tensor *t) {
  tfc_tensor_unref(c->outputs[i]);
  c->outputs[i] = t;
}

int tfc_kernel_error(tfc_kernel_ctx *c, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = tfc_status_setv(c->status, code, fmt, ap);
  va_end(ap);
  return r;
}

/* Below about 32K element-operations a hop to another thread costs more than it saves. */
#define MIN_WORK_PER_SHARD (TFC_KERNEL_SMALL_WORK / 2)

void tfc_kernel_parallel_for(tfc_kernel_ctx *c, int64_t n, int64_t cost_per_item,
                             void (*fn)(int64_t, int64_t, void *), void *arg) {
  if (!c->pool || n < 2) { /* nothing to split: no setup */
    fn(0, n, arg);
    return;
  }
  if (cost_per_item < 1) cost_per_item = 1;
  int64_t min_shard = MIN_WORK_PER_SHARD / cost_per_item;
  if (min_shard < 1) min_shard = 1;
  if (!c->pool || n < 2 * min_shard) {
    fn(0, n, arg);
    return;
  }
  tfc_threadpool_parallel_for(c->pool, n, min_shard, c->max_parallel, fn, arg);
}

static int attr_missing(const tfc_node *n, const char *name, const char *kind, tfc_status *s) {
  return tfc_status_set(s, TFC_INTERNAL, "node '%s' (%s): missing %s attr '%s'", n->name, n->op->name,
                        kind, name);
}

int tfc_kernel_attr_type(const tfc_node *n, const char *name, int *out, tfc_status *s) {
  return tfc_node_attr_type(n, name, out) ? attr_missing(n, name, "type", s) : TFC_OK;
}
int tfc_kernel_attr_int(const tfc_node *n, const char *name, int64_t *out, tfc_status *s) {
  return tfc_node_attr_int(n, name, out) ? attr_missing(n, name, "int", s) : TFC_OK;
}
int tfc_kernel_attr_bool(const tfc_node *n, const char *name, int *out, tfc_status *s) {
  return tfc_node_attr_bool(n, name, out) ? attr_missing(n, name, "bool", s) : TFC_OK;
}
int tfc_kernel_attr_string(const tfc_node *n, const char *name, const char **out, tfc_status *s) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  if (!v || v->kind != TFC_ATTR_STRING) return attr_missing(n, name, "string", s);
  *out = v->u.s.data;
  return TFC_OK;
}

int tfc_kernel_bad_indices_ignore(const tfc_node *n, int *out_ignore, tfc_status *s) {
  const tfc_attr_value *v = tfc_node_attr(n, "bad_indices_policy");
  const char *p = v && v->kind == TFC_ATTR_STRING ? v->u.s.data : "";
  *out_ignore = !strcmp(p, "IGNORE");
  if (*out_ignore || !*p || !strcmp(p, "DEFAULT") || !strcmp(p, "ERROR")) return TFC_OK;
  return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Unknown bad indices handling attribute: %s (node '%s', %s)", p,
                        n->name, n->op->name);
}

/* ---------------- variables ---------------- */

struct tfc_var *tfc_kernel_input_var(tfc_kernel_ctx *c, int i) {
  tfc_tensor *t = c->inputs[i];
  if (t && t->var) return t->var;
  tfc_var *v = tfc_var_from_handle(t);
  if (!v)
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input %d of %s is not a variable (a ref or resource handle)", i,
                     c->node->op->name);
  return v;
}

int tfc_kernel_update_begin(tfc_kernel_ctx *c, const int *inputs, int n, int require_init, tfc_var_update *u) {
  if (n > TFC_MAX_UPDATE_VARS)
    return tfc_kernel_error(c, TFC_INTERNAL, "%s updates %d variables; at most %d", c->node->op->name, n,
                            TFC_MAX_UPDATE_VARS);
  u->n = n;
  for (int k = 0; k < n; k++) {
    u->staged[k] = u->old[k] = NULL;
    if (!(u->vars[k] = tfc_kernel_input_var(c, inputs[k]))) return c->status->code;
  }
  tfc_var_lock_many(u->vars, n);
  for (int k = 0; k < n; k++) {
    u->old[k] = u->vars[k]->value;
    if (!u->old[k] && require_init) {
      tfc_var_unlock_many(u->vars, n);
      return tfc_kernel_error(c, TFC_FAILED_PRECONDITION, "Attempting to use uninitialized value %s",
                              u->vars[k]->name);
    }
  }
  return TFC_OK;
}

tfc_tensor *tfc_kernel_update_alloc(tfc_kernel_ctx *c, tfc_var_update *u, int k) {
  const tfc_tensor *old = u->old[k];
  tfc_tensor *t = tfc_allocator_tensor(c->device ? c->device->allocator : NULL, old ? old->dtype : u->vars[k]->dtype,
                                       old ? old->dims : NULL, old ? old->ndims : 0, c->status);
  if (t) tfc_kernel_update_set(u, k, t);
  return t;
}

void tfc_kernel_update_set(tfc_var_update *u, int k, tfc_tensor *t) {
  tfc_tensor_unref(u->staged[k]);
  u->staged[k] = t;
}

int tfc_kernel_update_end(tfc_kernel_ctx *c, tfc_var_update *u) {
  for (int k = 0; k < u->n; k++) {
    tfc_tensor *t = u->staged[k];
    u->staged[k] = NULL;
    if (!t) continue;
    if (!tfc_status_ok(c->status))
      tfc_tensor_unref(t);
    else
      tfc_var_install_locked(u->vars[k], c->txn, t, c->status);
  }
  tfc_var_unlock_many(u->vars, u->n);
  return c->status->code;
}

void tfc_kernel_forward_ref(tfc_kernel_ctx *c, int in, int out) {
  tfc_kernel_set_output(c, out, tfc_tensor_ref(c->inputs[in]));
}

int tfc_kernel_run_host(const tfc_kernel_def *k, const tfc_node *n, tfc_tensor *const *ins, tfc_tensor **outs,
                        tfc_status *s) {
  tfc_tensor *in_small[8];
  tfc_tensor **in = n->n_inputs <= 8 ? in_small : calloc((size_t)n->n_inputs, sizeof *in);
  for (int i = 0; i < n->n_outputs; i++) outs[i] = NULL;
  if (!in) return TFC_OOM(s);
  for (int i = 0; i < n->n_inputs; i++) in[i] = tfc_tensor_ref(ins[i]);
  void *state = NULL;
  if (!k->compute) {
    tfc_status_set(s, TFC_INTERNAL, "kernel of %s has no synchronous compute", n->op->name);
  } else if (!k->init || k->init(n, &state, s) == TFC_OK) {
    tfc_kernel_ctx c = {.node = n,
                        .state = state,
                        .n_inputs = n->n_inputs,
                        .inputs = in,
                        .n_outputs = n->n_outputs,
                        .outputs = outs,
                        .status = s,
                        .host_memory_out = k->host_memory_out};
    k->compute(&c);
    if (k->free_state && state) k->free_state(state);
  }
  for (int i = 0; i < n->n_outputs && tfc_status_ok(s); i++)
    if (!outs[i]) tfc_status_set(s, TFC_INTERNAL, "kernel of %s left output %d unset", n->op->name, i);
  if (!tfc_status_ok(s))
    for (int i = 0; i < n->n_outputs; i++) {
      tfc_tensor_unref(outs[i]);
      outs[i] = NULL;
    }
  for (int i = 0; i < n->n_inputs; i++) tfc_tensor_unref(in[i]);
  if (in != in_small) free(in);
  return s->code;
}
