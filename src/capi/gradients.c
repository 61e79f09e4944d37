/*
 * capi/gradients — TF_AddGradients and TF_AddGradientsWithPrefix: argument checks and
 * translation between TF_Output and graph endpoints; the walk is grad/gradients.c.
 *
 * Behaviour (TF 1.15's C API): nodes under "gradients", "gradients_1", ... or the given prefix
 * (INVALID_ARGUMENT when a node already uses it); dx NULL seeds with ones; an x unreachable
 * from every y is INVALID_ARGUMENT; an op on the path without a gradient is NOT_FOUND. An x
 * that is reachable but receives no gradient (StopGradient, integer paths) gets zeros, where
 * TF hands back a NULL operation. TF_NewWhile loops get TF's C++ loop gradient (counter loops
 * and a gradient loop, no stacks: grad/grad_loop.c). On error the graph is unchanged and dy is
 * not written.
 */
#include "capi/capi_internal.h"
#include "grad/gradients.h"

#include <stdlib.h>

static void add_gradients(TF_Graph *g, const char *prefix, TF_Output *y, int ny, TF_Output *x, int nx,
                          TF_Output *dx, TF_Status *status, TF_Output *dy) {
  tfc_status *s = tfc_capi_status(status);
  if (!s) return;
  if (!g || ny < 0 || nx < 0 || (ny > 0 && !y) || (nx > 0 && (!x || !dy))) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_AddGradients: graph, y, x and dy must be given");
    return;
  }
  size_t n = (size_t)ny + (size_t)nx + (size_t)ny + (size_t)nx + 1;
  tfc_endpoint *buf = calloc(n, sizeof *buf);
  if (!buf) {
    TFC_OOM(s);
    return;
  }
  tfc_endpoint *ey = buf, *ex = ey + ny, *edx = ex + nx, *out = edx + ny;
  for (int i = 0; i < ny; i++) ey[i] = tfc_capi_endpoint(y[i]);
  for (int i = 0; i < nx; i++) ex[i] = tfc_capi_endpoint(x[i]);
  for (int i = 0; dx && i < ny; i++) edx[i] = tfc_capi_endpoint(dx[i]);
  tfc_grad_options opt = tfc_grad_options_capi();
  opt.prefix = prefix;
  if (tfc_gradients_add(g->g, ey, ny, ex, nx, dx ? edx : NULL, &opt, out, s) == TFC_OK)
    for (int i = 0; i < nx; i++) {
      dy[i].oper = out[i].node ? tfc_capi_oper(out[i].node) : NULL;
      dy[i].index = out[i].index;
    }
  free(buf);
}

TFC_EXPORT void TF_AddGradients(TF_Graph *g, TF_Output *y, int ny, TF_Output *x, int nx, TF_Output *dx,
                                TF_Status *status, TF_Output *dy) {
  add_gradients(g, NULL, y, ny, x, nx, dx, status, dy);
}

TFC_EXPORT void TF_AddGradientsWithPrefix(TF_Graph *g, const char *prefix, TF_Output *y, int ny,
                                          TF_Output *x, int nx, TF_Output *dx, TF_Status *status,
                                          TF_Output *dy) {
  add_gradients(g, prefix, y, ny, x, nx, dx, status, dy);
}
