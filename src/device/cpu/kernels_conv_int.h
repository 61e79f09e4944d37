/*
 * kernels_conv_int — what the convolution and pooling kernel files share (private to
 * kernels_conv*.c, kernels_pool*.c and kernels_depthwise*.c): the oneDNN layer
 * (kernels_conv_dnnl.c) and the plain-C kernels (kernels_conv_ref.c). Attrs, shapes and
 * geometry come from device/conv_plan.h.
 *
 * Threading. Debian's oneDNN 2.6 is built with the OpenMP runtime (DNNL_CPU_RUNTIME OMP):
 * left alone, every thread that calls it starts its own team of omp_get_max_threads()
 * threads (the core count), so two kernels on two pool threads would run 2 x cores threads,
 * and libgomp's workers keep spinning after each region, stealing the cores the intra-op pool
 * needs next. So oneDNN runs single-threaded on each calling thread (tfc_dnn_run sets the
 * thread's OpenMP nthreads to 1), and the kernels cut the batch into as many shards as the
 * node's share of threads (c->max_parallel) on the device's own pool, one primitive per shard
 * size (at most two sizes). A node then uses exactly its share, the same as GEMM does.
 *
 * Caching. Each node's kernel state owns a tfc_dnn_cache of primitives keyed by the full
 * geometry (including the shard's minibatch); entries are built once under the cache's mutex
 * and are read-only afterwards, so concurrent steps share them. Scratchpads are user-managed
 * (allocated per execution), which makes concurrent execution of one primitive safe.
 */
#ifndef TFC_DEVICE_CPU_KERNELS_CONV_INT_H
#define TFC_DEVICE_CPU_KERNELS_CONV_INT_H

#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>

#include "device/conv_plan.h"
#include "device/cpu/cpu_kernels.h"

/* ---- fused epilogues (_FusedConv2D, _FusedDepthwiseConv2dNative) ---- */

/* tfc_conv_fusion, its parse and checks: device/conv_plan.h (the GPU kernels share them). */
/* Adds bias (and addend, same layout as out, when not NULL) and applies f's activation in place
 * over out: n_pix pixels of oc channels (NHWC), or n images of oc planes of `plane` pixels
 * (NCHW: nchw = 1, n_pix = n * plane). float or double by dtype. Sharded over c's pool. */
void tfc_conv_fusion_ref(tfc_kernel_ctx *c, const tfc_conv_fusion *f, int dtype, void *out, const void *bias,
                         const void *addend, int64_t n_pix, int64_t oc, int nchw, int64_t plane);

/* ---- oneDNN layer (kernels_conv_dnnl.c) ---- */

#define TFC_DNN_MAX_ARGS 4

typedef struct tfc_dnn_arg {
  int arg;                  /* DNNL_ARG_* */
  int is_output;
  dnnl_memory_desc_t user;  /* the tensor's own layout */
  dnnl_memory_desc_t prim;  /* the layout the primitive chose */
  dnnl_primitive_t reorder; /* user->prim (inputs) or prim->user (outputs); NULL when equal */
  size_t reorder_scratch;   /* the reorder's scratchpad bytes (Winograd weights need one) */
} tfc_dnn_arg;

/* One primitive with its arguments' layouts and reorders. Immutable once built. */
typedef struct tfc_dnn_prim {
  dnnl_primitive_t prim;
  int n_args;
  tfc_dnn_arg args[TFC_DNN_MAX_ARGS];
  size_t scratch_bytes;
  char impl[48]; /* oneDNN's implementation name, for timing drivers and tests */
} tfc_dnn_prim;

/* The process's CPU engine (created once, thread-safe). NULL with status on failure. */
dnnl_engine_t tfc_dnn_engine(tfc_status *s);
/* Makes oneDNN on the calling thread single-threaded (see the top comment). Cheap. */
void tfc_dnn_single_thread(void);
/* Sets s from a oneDNN status (`what` names the call). Returns s->code (0 when ok). */
int tfc_dnn_check(dnnl_status_t st, const char *what, tfc_status *s);
/* A primitive descriptor for op_desc with a user-managed scratchpad. */
int tfc_dnn_pd_create(const_dnnl_op_desc_t op_desc, const_dnnl_primitive_desc_t hint, dnnl_primitive_desc_t *out,
                      tfc_status *s);
/* The same with f's activation as an eltwise post-op (f NULL or TFC_ACT_NONE: none). */
int tfc_dnn_pd_create_fused(const_dnnl_op_desc_t op_desc, const_dnnl_primitive_desc_t hint, const tfc_conv_fusion *f,
                            dnnl_primitive_desc_t *out, tfc_status *s);
/* Builds p from pd (taken: destroyed here) and the users' layouts of n args. */
int tfc_dnn_prim_init(tfc_dnn_prim *p, dnnl_primitive_desc_t pd, const int *arg_ids, const int *is_output,
                      const dnnl_memory_desc_t *user, int n, tfc_status *s);
/* A pooling primitive over user descriptors src and dst (2-D or 3-D; strides, kernel and the
 * before/after padding per spatial dim): max or average (padding excluded), the forward for
 * inference, or (avg_grad) the average's backward from diff_dst to diff_src. Fills p; the
 * status on failure. */
int tfc_dnn_pool_prim(tfc_dnn_prim *p, const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst,
                      const dnnl_dim_t *strides, const dnnl_dim_t *kernel, const dnnl_dim_t *pl, const dnnl_dim_t *pr,
                      int max, int avg_grad, tfc_status *s);
void tfc_dnn_prim_fini(tfc_dnn_prim *p);
/* Runs p on the calling thread. ptr[i] is arg i's buffer in its user layout, or in the
 * primitive's layout when bit i of `prearranged` is set (no reorder then). */
int tfc_dnn_run(const tfc_dnn_prim *p, void *const *ptr, unsigned prearranged, tfc_status *s);
/* Reorders arg i of p between its user buffer and a prim-layout buffer (direction by is_output
 * reversed: to_prim != 0 converts user -> prim). Only when args[i].reorder. */
int tfc_dnn_reorder_arg(const tfc_dnn_prim *p, int i, void *user, void *prim, int to_prim, tfc_status *s);
/* Bytes of arg i in the primitive's layout. */
size_t tfc_dnn_arg_bytes(const tfc_dnn_prim *p, int i);
/* A memory descriptor for a plain f32 tensor: dims in oneDNN's order (N,C,H,W / O,I,H,W). */
void tfc_dnn_md(dnnl_memory_desc_t *md, int64_t d0, int64_t d1, int64_t d2, int64_t d3, dnnl_format_tag_t tag);
/* The same for ndims (at most DNNL_MAX_NDIMS) dims in oneDNN's order (N,C,D,H,W / O,I,D,H,W
 * for the 3-D ops) with a tag of that rank (dnnl_ndhwc, dnnl_dhwio, ...). */
void tfc_dnn_md_nd(dnnl_memory_desc_t *md, int ndims, const int64_t *dims, dnnl_format_tag_t tag);

/* A per-node cache of built entries keyed by bytes. Entries live until tfc_dnn_cache_fini. */
typedef struct tfc_dnn_cache_entry tfc_dnn_cache_entry;
typedef struct tfc_dnn_cache {
  pthread_mutex_t mu;
  tfc_dnn_cache_entry *head;
} tfc_dnn_cache;
void tfc_dnn_cache_init(tfc_dnn_cache *c);
void tfc_dnn_cache_fini(tfc_dnn_cache *c);
/* The primitive for key, built by build(key, p, s) on a miss (under the lock). Borrowed. */
const tfc_dnn_prim *tfc_dnn_cache_get(tfc_dnn_cache *c, const void *key, size_t key_len,
                                      int (*build)(const void *key, tfc_dnn_prim *p, tfc_status *s), tfc_status *s);

/* Batch shards for one call: n_shards pieces of [0, n), at most the node's thread share, fewer
 * when the work (flops) is too small to pay for a hop. */
int tfc_conv_n_shards(const tfc_kernel_ctx *c, int64_t n, double flops);
/* Memory-bound kernels (a product with few rows, a depthwise window) are split by the bytes
 * they move, each weighed as this many flops (about 10 GB/s on one core against its flops:
 * 2 MFLOP ~ 200 KB ~ 20 us). */
#define TFC_FLOPS_PER_BYTE_MOVED 10
static inline void tfc_conv_shard(int64_t n, int n_shards, int k, int64_t *begin, int64_t *size) {
  int64_t q = n / n_shards, r = n % n_shards;
  *begin = k * q + (k < r ? k : r);
  *size = q + (k < r);
}
/* One piece of a call: its geometry (n = the piece's images; for a band, one image and its
 * output rows with the input rows they read and the padding inside them) and the byte offsets
 * of its activations in the batched input and output. */
typedef struct tfc_conv_piece {
  tfc_window_geom g;
  int64_t in_off, out_off, out_bytes;
} tfc_conv_piece;
/* Cuts a call of geometry g into pieces: images shared out as tfc_conv_n_shards says, or, when
 * `bands` (a forward NHWC convolution) and the work pays for more threads than images (batch-1
 * inference), images times bands of output rows — in NHWC a band of one image's rows is
 * contiguous on both sides (a 1x1 window at stride 1 without padding: bands of pixels). in_img / out_img: the bytes of one image of the input and output
 * activations. Fills pc[0 .. *n) (room for max); never fails. */
#define TFC_CONV_MAX_PIECES 64 /* the most pieces a caller plans room for */
void tfc_conv_pieces(const tfc_kernel_ctx *c, const tfc_window_geom *g, double flops, int bands, int64_t in_img,
                     int64_t out_img, tfc_conv_piece *pc, int max, int *n);

/* Runs fn(k, arg) for k in [0, n_shards) on the intra-op pool (inline when one). */
void tfc_conv_for_shards(tfc_kernel_ctx *c, int n_shards, void (*fn)(int k, void *arg), void *arg);

/* The pooling rows (kernels_pool.c), added by tfc_cpu_kernels_conv. */
int tfc_cpu_kernels_pool(tfc_kernel_table *t, tfc_status *s);
/* The 3-D convolution and pooling rows (kernels_conv3d.c), added by tfc_cpu_kernels_conv. */
int tfc_cpu_kernels_conv3d(tfc_kernel_table *t, tfc_status *s);

/* ---- plain C (kernels_conv_ref.c): double, and MaxPoolGrad for float (TF's tie rule) ---- */

/* Conv2D and its backprops in double; filter HWIO. Sharded over the pool. */
void tfc_conv_ref_fwd(tfc_kernel_ctx *c, const tfc_window_geom *g, const double *in, const double *f, double *out);
void tfc_conv_ref_bwd_input(tfc_kernel_ctx *c, const tfc_window_geom *g, const double *f, const double *dout,
                            double *din);
void tfc_conv_ref_bwd_filter(tfc_kernel_ctx *c, const tfc_window_geom *g, const double *in, const double *dout,
                             double *df);
/* Pooling over H and W for float or double: max (first maximum of the window in row-major
 * order, as TF) or average over the valid (unpadded) elements. */
void tfc_pool_ref_fwd(tfc_kernel_ctx *c, const tfc_window_geom *g, int dtype, int is_max, const void *in, void *out);
void tfc_pool_ref_max_grad(tfc_kernel_ctx *c, const tfc_window_geom *g, int dtype, const void *in, const void *grad,
                           void *out);
void tfc_pool_ref_avg_grad(tfc_kernel_ctx *c, const tfc_window_geom *g, int dtype, const void *grad, void *out);
/* Max pooling's workspace (_MaxPoolWithWorkspace, float), for images [b0, b1) on the calling
 * thread (the pool's shards call it after their oneDNN pass): per output element of g's pooled
 * shape, the index in its unclipped window (row * kw + col) of the element MaxPoolGrad routes
 * its gradient to, or TFC_POOL_WS_NONE for an empty window (needs kh * kw < TFC_POOL_WS_NONE);
 * RESOURCE_EXHAUSTED in s. And MaxPoolGrad from it (_MaxPoolGradWithWorkspace, sharded over the
 * pool): out gets what tfc_pool_ref_max_grad gives for the workspace's input, bit for bit. */
#define TFC_POOL_WS_NONE 255
void tfc_pool_ref_max_workspace_images(const tfc_window_geom *g, const float *in, uint8_t *ws, int64_t b0,
                                       int64_t b1, tfc_status *s);
void tfc_pool_ref_max_grad_workspace(tfc_kernel_ctx *c, const tfc_window_geom *g, const uint8_t *ws,
                                     const float *grad, float *out);

#endif
