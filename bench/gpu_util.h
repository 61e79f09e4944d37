/*
 * gpu_util — what the GPU benchmarks share (header-only, beside bench_util.h): whether tfc sees
 * a GPU, the one line a benchmark prints instead of its figures when it does not, and the
 * GPUOptions a benchmark sets through TF_SetConfig (allow_growth, virtual devices), encoded by
 * hand as the examples do so that a benchmark needs nothing beyond the public C API.
 *
 * Why allow_growth: without it a GPU device's arena takes nearly all of the GPU's free memory
 * at its first allocation (TF's default), and a peer in the same process (cuBLAS) or run after
 * it (PyTorch) would find none left.
 */
#ifndef TFC_BENCH_GPU_UTIL_H
#define TFC_BENCH_GPU_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"

/* The number of GPU devices a default session lists (0 in a build without CUDA, on a machine
 * without a GPU or driver, or when the session cannot be created). Creating the session takes
 * no GPU memory (the arenas are lazy). Not thread-safe against other TF calls on `o`. */
static inline int bench_gpu_count(TF_SessionOptions *o) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *own = o ? NULL : TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o ? o : own, s);
  int n = 0;
  if (TF_GetCode(s) == TF_OK) {
    TF_DeviceList *l = TF_SessionListDevices(sess, s);
    for (int i = 0; l && i < TF_DeviceListCount(l); i++) {
      const char *type = TF_DeviceListType(l, i, s);
      if (type && strcmp(type, "GPU") == 0) n++;
    }
    if (l) TF_DeleteDeviceList(l);
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
  }
  if (own) TF_DeleteSessionOptions(own);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return n;
}

/* Prints the one line of a benchmark that cannot run here and exits 0 (a missing GPU is not
 * a failure of the benchmark) unless tfc sees at least one GPU. */
static inline void bench_need_gpu(const char *bench) {
  if (bench_gpu_count(NULL) > 0) return;
  printf("%s: needs a GPU: tfc sees none (a build with CUDA on a machine with an NVIDIA GPU and its "
         "driver is needed); nothing measured\n",
         bench);
  exit(0);
}

/* Sets ConfigProto { gpu_options { allow_growth: true  experimental { virtual_devices {
 * memory_limit_mb: mb[0..n_mb) } } } } on o (no virtual devices when n_mb is 0; at most 8
 * limits). Returns 0, or -1 with the status's message printed. */
static inline int bench_gpu_config(TF_SessionOptions *o, const float *mb, int n_mb) {
  unsigned char buf[64];
  size_t k = 0;
  if (n_mb < 0 || n_mb > 8) return -1;
  size_t limits = 4 * (size_t)n_mb;                   /* packed floats */
  size_t vdev = n_mb ? 2 + limits : 0;                /* VirtualDevices { memory_limit_mb } */
  size_t exp = n_mb ? 2 + vdev : 0;                   /* Experimental { virtual_devices } */
  size_t gpu = 2 + (n_mb ? 2 + exp : 0);              /* GPUOptions { allow_growth, experimental } */
  buf[k++] = 0x32; /* ConfigProto.gpu_options, field 6, length-delimited */
  buf[k++] = (unsigned char)gpu;
  buf[k++] = 0x20; /* GPUOptions.allow_growth, field 4, varint */
  buf[k++] = 1;
  if (n_mb) {
    buf[k++] = 0x4a; /* GPUOptions.experimental, field 9 */
    buf[k++] = (unsigned char)exp;
    buf[k++] = 0x0a; /* Experimental.virtual_devices, field 1 */
    buf[k++] = (unsigned char)vdev;
    buf[k++] = 0x0a; /* VirtualDevices.memory_limit_mb, field 1, packed */
    buf[k++] = (unsigned char)limits;
    memcpy(buf + k, mb, limits); /* little-endian IEEE floats, as protobuf's fixed32 */
    k += limits;
  }
  TF_Status *s = TF_NewStatus();
  TF_SetConfig(o, buf, k, s);
  int rc = TF_GetCode(s) == TF_OK ? 0 : -1;
  if (rc) fprintf(stderr, "TF_SetConfig: %s\n", TF_Message(s));
  TF_DeleteStatus(s);
  return rc;
}

#endif
