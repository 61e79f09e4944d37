/*
 * kernels_script — PyFunc and PyFuncStateless on the CPU: the node's inputs go to the
 * process's script callback (device/script.h) with the node's `token`; what it returns
 * becomes the outputs, each checked against the node's Tout ("0-th value returned by
 * pyfunc_0 is double, but expects float", INVALID_ARGUMENT, as TF). Without a callback:
 * FAILED_PRECONDITION naming the token. All inputs and outputs live in host memory.
 *
 * The callback setter lives here too: one (fn, ctx) pair under a mutex, read together.
 */
#include <pthread.h>
#include <stdlib.h>

#include "device/cpu/cpu_kernels.h"
#include "device/script.h"
#include "ops/opdef.h"

static pthread_mutex_t script_mu = PTHREAD_MUTEX_INITIALIZER;
static tfc_script_fn script_fn;
static void *script_ctx;

void tfc_script_set_callback(tfc_script_fn fn, void *ctx) {
  pthread_mutex_lock(&script_mu);
  script_fn = fn;
  script_ctx = fn ? ctx : NULL;
  pthread_mutex_unlock(&script_mu);
}

void tfc_script_get_callback(tfc_script_fn *fn, void **ctx) {
  pthread_mutex_lock(&script_mu);
  *fn = script_fn;
  *ctx = script_ctx;
  pthread_mutex_unlock(&script_mu);
}

/* state: the token (borrowed from the node). */
static int script_init(const tfc_node *n, void **state, tfc_status *s) {
  const char *token;
  TFC_TRY(tfc_kernel_attr_string(n, "token", &token, s));
  *state = (void *)token;
  return TFC_OK;
}

static int script_compute(tfc_kernel_ctx *c) {
  const char *token = c->state;
  tfc_script_fn fn;
  void *ctx;
  tfc_script_get_callback(&fn, &ctx);
  if (!fn)
    return tfc_kernel_error(c, TFC_FAILED_PRECONDITION,
                            "%s needs a script callback in this process (the Python package sets one); "
                            "none is set to run %s",
                            c->node->op->name, token);
  int n_out = c->n_outputs;
  tfc_tensor **out = n_out ? calloc((size_t)n_out, sizeof *out) : NULL;
  if (n_out && !out) return TFC_OOM(c->status);
  int rc = fn(ctx, token, c->inputs, c->n_inputs, c->node->output_types, n_out, out, c->status);
  if (rc == TFC_OK) {
    for (int i = 0; i < n_out; i++) {
      int want = c->node->output_types[i];
      if (!out[i]) {
        rc = tfc_kernel_error(c, TFC_INTERNAL, "%d-th value of %s was not returned", i, token);
        break;
      }
      if (out[i]->dtype != want) {
        rc = tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%d-th value returned by %s is %s, but expects %s", i,
                              token, tfc_dtype_name(out[i]->dtype), tfc_dtype_name(want));
        break;
      }
    }
  } else if (tfc_status_ok(c->status)) {
    rc = tfc_kernel_error(c, TFC_UNKNOWN, "%s failed", token);
  }
  for (int i = 0; i < n_out; i++) {
    if (rc == TFC_OK) tfc_kernel_set_output(c, i, out[i]);
    else if (out[i]) tfc_tensor_unref(out[i]);
  }
  free(out);
  return rc;
}

static const tfc_kernel_def script_kernels[] = {
    {.op = TFC_OP_PyFunc, .host_memory_in = TFC_TYPES_ALL, .host_memory_out = TFC_TYPES_ALL,
     .flags = TFC_KF_EXPENSIVE, .init = script_init, .compute = script_compute},
    {.op = TFC_OP_PyFuncStateless, .host_memory_in = TFC_TYPES_ALL, .host_memory_out = TFC_TYPES_ALL,
     .flags = TFC_KF_EXPENSIVE, .init = script_init, .compute = script_compute},
};

int tfc_cpu_kernels_script(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, script_kernels, (int)(sizeof script_kernels / sizeof *script_kernels), s);
}
