/*
 * cudnn_loader — dlopen of cuDNN and the per-(GPU, stream) handle table (see cudnn_loader.h).
 *
 * The load is tried once per process under the table's mutex; its outcome (the function table
 * or the reason it failed) is kept, so a machine without cuDNN answers every cuDNN kernel with
 * the same FAILED_PRECONDITION instead of retrying dlopen per step. The library stays loaded
 * for the life of the process, since handles point into it.
 */
#include "device/cuda/cudnn_loader.h"

#include <pthread.h>
#include <stdio.h>

#include "device/cuda/lib_loader.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define CUDNN_SONAME "libcudnn.so." STR(CUDNN_MAJOR)

/* Streams live as long as their device, and devices are few. */
#define MAX_HANDLES 64

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static tfc_cudnn_api api;  /* guarded by mu until loaded, constant after */
static int state;          /* 0: not tried, 1: loaded, -1: failed (err says why); guarded by mu */
static char err[320];
static struct {
  int ordinal;
  void *stream;
  cudnnHandle_t handle;
  pthread_mutex_t use; /* held by the kernel using the handle (see cudnn_loader.h) */
} handles[MAX_HANDLES]; /* the table guarded by mu; an entry is never changed once added */
static int n_handles;

static int load(void) {
  static const tfc_cuda_sym syms[] = {
      {"cudnnCreate", (void **)&api.create},
      {"cudnnDestroy", (void **)&api.destroy},
      {"cudnnSetStream", (void **)&api.set_stream},
      {"cudnnGetErrorString", (void **)&api.error_string},
      {"cudnnCreateTensorDescriptor", (void **)&api.create_tensor},
      {"cudnnSetTensorNdDescriptor", (void **)&api.set_tensor_nd},
      {"cudnnDestroyTensorDescriptor", (void **)&api.destroy_tensor},
      {"cudnnCreateFilterDescriptor", (void **)&api.create_filter},
      {"cudnnSetFilterNdDescriptor", (void **)&api.set_filter_nd},
      {"cudnnDestroyFilterDescriptor", (void **)&api.destroy_filter},
      {"cudnnCreateConvolutionDescriptor", (void **)&api.create_conv},
      {"cudnnSetConvolutionNdDescriptor", (void **)&api.set_conv_nd},
      {"cudnnSetConvolutionMathType", (void **)&api.set_conv_math},
      {"cudnnSetConvolutionGroupCount", (void **)&api.set_conv_groups},
      {"cudnnDestroyConvolutionDescriptor", (void **)&api.destroy_conv},
      {"cudnnGetConvolutionForwardAlgorithm_v7", (void **)&api.fwd_algos},
      {"cudnnGetConvolutionBackwardDataAlgorithm_v7", (void **)&api.bwd_data_algos},
      {"cudnnGetConvolutionBackwardFilterAlgorithm_v7", (void **)&api.bwd_filter_algos},
      {"cudnnConvolutionForward", (void **)&api.conv_fwd},
      {"cudnnConvolutionBackwardData", (void **)&api.conv_bwd_data},
      {"cudnnConvolutionBackwardFilter", (void **)&api.conv_bwd_filter},
      {"cudnnTransformTensor", (void **)&api.transform},
  };
  int rc = tfc_cuda_lib_load("cuDNN", CUDNN_SONAME, syms, (int)(sizeof syms / sizeof syms[0]), err, sizeof err);
  return rc == 0 ? 1 : -1;
}

/* Loads under mu (held by the caller). */
static int ensure_loaded(tfc_kernel_ctx *c) {
  if (state == 0) state = load();
  if (state > 0) return TFC_OK;
  return tfc_kernel_error(c, TFC_FAILED_PRECONDITION, "%s on GPU: %s", c->node->op->name, err);
}

const tfc_cudnn_api *tfc_cudnn_api_get(tfc_kernel_ctx *c) {
  pthread_mutex_lock(&mu);
  int rc = ensure_loaded(c);
  pthread_mutex_unlock(&mu);
  return rc ? NULL : &api;
}

int tfc_cudnn_acquire(tfc_kernel_ctx *c, int ordinal, void *stream, cudnnHandle_t *out) {
  *out = NULL;
  pthread_mutex_lock(&mu);
  if (ensure_loaded(c)) {
    pthread_mutex_unlock(&mu);
    return c->status->code;
  }
  int found = -1;
  for (int i = 0; i < n_handles && found < 0; i++)
    if (handles[i].ordinal == ordinal && handles[i].stream == stream) found = i;
  if (found < 0) {
    if (n_handles == MAX_HANDLES) {
      pthread_mutex_unlock(&mu);
      return tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU %d: creating a cuDNN handle failed: more than %d streams",
                              c->node->op->name, ordinal, MAX_HANDLES);
    }
    cudnnHandle_t h = NULL;
    cudnnStatus_t st = api.create(&h);
    if (st == CUDNN_STATUS_SUCCESS) st = api.set_stream(h, (cudaStream_t)stream);
    if (st == CUDNN_STATUS_SUCCESS && pthread_mutex_init(&handles[n_handles].use, NULL) != 0)
      st = CUDNN_STATUS_ALLOC_FAILED;
    if (st != CUDNN_STATUS_SUCCESS) {
      if (h) api.destroy(h);
      pthread_mutex_unlock(&mu);
      return tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU %d: creating a cuDNN handle failed: %s", c->node->op->name,
                              ordinal, api.error_string(st));
    }
    handles[n_handles].ordinal = ordinal;
    handles[n_handles].stream = stream;
    handles[n_handles].handle = h;
    found = n_handles++;
  }
  pthread_mutex_unlock(&mu);
  /* Entries never change once added, so the handle's own lock is taken outside the table's. */
  pthread_mutex_lock(&handles[found].use);
  *out = handles[found].handle;
  return TFC_OK;
}

void tfc_cudnn_release(cudnnHandle_t h) {
  if (!h) return;
  pthread_mutex_lock(&mu);
  int n = n_handles;
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < n; i++)
    if (handles[i].handle == h) {
      pthread_mutex_unlock(&handles[i].use);
      return;
    }
}

int tfc_cudnn_check(tfc_kernel_ctx *c, cudnnStatus_t st, const char *what) {
  if (st == CUDNN_STATUS_SUCCESS) return c->status->code;
  return tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU: %s failed: %s", c->node->op->name, what, api.error_string(st));
}
