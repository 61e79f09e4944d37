/*
 * builders/gradients — TFC_Gradients, tf.gradients for the builders: the name scope
 * "<scope>/gradients" (unique among the builders' names in use, so a scope the caller opened
 * but left empty counts) handed as the explicit prefix to the gradient walk
 * (grad/gradients.h), which adds the nodes with Python's names and, when asked, its tuple
 * wrapping.
 *
 * The walk takes the graph lock itself, so the call releases the lock around it (bld_pause)
 * and keeps its marks: a failure after the walk — in TFC_Minimize, the apply half — still
 * rolls the gradient nodes back. Like every builder, concurrent writers on the same graph are
 * not supported during the call.
 *
 * Python gives gradient ops the device of the enclosing tf.device; the walk has no device
 * parameter, so the fresh nodes get the scope's device (and its device functions' choice)
 * right after the walk, under the lock, before anything else can see them. The scope's control dependencies are not applied to
 * gradient nodes (Python would add them to the ops that have no input made inside the block).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "builders/builders_internal.h"
#include "grad/gradients.h"

/* The cond records of the builders (control_flow.c) for the walk's cond gradients. */
static int cond_of(void *ctx, const tfc_node *n, tfc_node **pred, int *branch) {
  bld_cond_rec r;
  if (!bld_cond_of(ctx, n, &r)) return 0;
  *pred = r.pred;
  *branch = r.branch;
  return 1;
}

int bld_gradients(bld_call *c, const TFC_Scope *scope, const tfc_endpoint *ys, int ny, const tfc_endpoint *xs,
                  int nx, const tfc_endpoint *grad_ys, int tuples, tfc_endpoint *out) {
  if (!tfc_status_ok(c->s)) return c->s->code;
  char *prefix = bld_unique(c, scope->name, bld_builder_name(scope, "gradients"));
  if (!prefix) return c->s->code;
  tfc_grad_options opt = tfc_grad_options_python();
  opt.prefix = prefix;
  opt.tuple_wrap = tuples != 0;
  opt.cond_of = cond_of;
  opt.cond_ctx = c->st;
  int before = tfc_graph_mark(c->g);
  bld_pause(c);
  int rc = tfc_gradients_add(c->g, ys, ny, xs, nx, grad_ys, &opt, out, c->s);
  bld_resume(c);
  free(prefix);
  if (rc) return rc;
  if (*scope->device || scope->devfn) {
    for (int i = before; i < c->g->n_nodes; i++) {
      tfc_node *n = c->g->nodes[i];
      if (*n->device) continue;
      char *d = NULL;
      if (scope->devfn) {
        TFC_TRY(bld_devfn_apply(c, scope->devfn, n->op->name, n->name, scope->device, tfc_capi_oper(n), &d));
      } else if (!(d = tfc_strdup(scope->device))) {
        return TFC_OOM(c->s);
      }
      free(n->device);
      n->device = d;
    }
  }
  return TFC_OK;
}

TFC_EXPORT void TFC_Gradients(const TFC_Scope *scope, const TF_Output *ys, int num_ys, const TF_Output *xs,
                             int num_xs, const TF_Output *grad_ys, unsigned char tuples, TF_Output *dxs,
                             TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (!scope || num_ys < 0 || num_xs < 0 || (num_ys && !ys) || (num_xs && (!xs || !dxs))) {
    tfc_status_set(tfc_capi_status_or(status, &scratch), TFC_INVALID_ARGUMENT,
                   "TFC_Gradients: invalid arguments (scope, counts or arrays)");
    tfc_status_fini(&scratch);
    return;
  }
  if (bld_begin(&c, scope->graph, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return;
  }
  size_t ny = (size_t)num_ys + 1, nx = (size_t)num_xs + 1;
  tfc_endpoint *y = calloc(ny, sizeof *y), *x = calloc(nx, sizeof *x), *gy = NULL, *out = calloc(nx, sizeof *out);
  if (grad_ys) gy = calloc(ny, sizeof *gy);
  if (!y || !x || !out || (grad_ys && !gy)) TFC_OOM(c.s);
  for (int i = 0; tfc_status_ok(c.s) && i < num_ys; i++)
    if (!bld_check_output(&c, ys[i], "ys")) y[i] = tfc_capi_endpoint(ys[i]);
  for (int i = 0; tfc_status_ok(c.s) && i < num_xs; i++)
    if (!bld_check_output(&c, xs[i], "xs")) x[i] = tfc_capi_endpoint(xs[i]);
  for (int i = 0; gy && tfc_status_ok(c.s) && i < num_ys; i++)
    if (grad_ys[i].oper && !bld_check_output(&c, grad_ys[i], "grad_ys")) gy[i] = tfc_capi_endpoint(grad_ys[i]);
  if (tfc_status_ok(c.s)) bld_gradients(&c, scope, y, num_ys, x, num_xs, gy, tuples, out);
  if (bld_end(&c) == TFC_OK)
    for (int i = 0; i < num_xs; i++)
      dxs[i] = out[i].node ? (TF_Output){tfc_capi_oper(out[i].node), out[i].index} : (TF_Output){NULL, -1};
  free(y);
  free(x);
  free(gy);
  free(out);
  tfc_status_fini(&scratch);
}
