/*
 * gpu_copy — see gpu_copy.h.
 *
 * Every copy is a job holding the source, the destination and the caller's completion. A
 * start function either finishes the job on the spot (no copy needed, a synchronous copy, or
 * an error before anything was queued) or queues it on a stream, after which the GPU's
 * completion thread finishes it. When queueing fails after the copy itself was queued, the
 * stream is synchronized before the destination is freed, so the device never writes memory
 * that went back to the arena.
 */
#include "device/gpu/gpu_copy.h"

#include <stdlib.h>

#include "device/gpu/gpu_device.h"
#include "tensor/allocator.h"

enum { JOB_DONE = 0, JOB_QUEUED = 1 };

typedef struct copy_job {
  tfc_tensor *src;     /* referenced until the end */
  tfc_tensor *dst;     /* the copy */
  tfc_tensor *staging; /* between GPUs without peer access: the host stop */
  tfc_device *gpu;     /* copies to a device: the destination (borrowed) */
  tfc_gpu_copy_done done;
  void *arg;
} copy_job;

int tfc_gpu_tensor_in_device_memory(const tfc_tensor *t) {
  return t && t->buf && t->buf->allocator && t->buf->allocator->device_memory;
}

static tfc_gpu_mem *mem_of(const tfc_tensor *t) { return t->buf ? tfc_gpu_mem_of(t->buf->allocator) : NULL; }

static void job_end(copy_job *j, const tfc_status *s) {
  tfc_tensor *out = NULL;
  if (tfc_status_ok(s)) {
    out = j->dst;
    j->dst = NULL;
  }
  /* The copy is over: its source and staging buffer go back before the step hears of it, so
   * their memory is free by the time the step ends. */
  tfc_tensor_unref(j->dst);
  tfc_tensor_unref(j->staging);
  tfc_tensor_unref(j->src);
  tfc_gpu_copy_done done = j->done;
  void *arg = j->arg;
  free(j);
  done(arg, s, out);
}

/* Completion-thread end of a queued copy. */
static void job_complete(void *arg) {
  tfc_status ok;
  tfc_status_init(&ok);
  job_end(arg, &ok);
}

static void sync_quietly(tfc_gpu_mem *m, void *stream) {
  tfc_status ignored; /* the copy's own error is the one to report */
  tfc_status_init(&ignored);
  tfc_gpu_mem_platform(m)->stream_sync(tfc_gpu_mem_ordinal(m), stream, &ignored);
  tfc_status_fini(&ignored);
}

/* Queues an n-byte copy on `stream` of GPU `on`, after the compute streams of after1 and
 * after2 (either may be NULL), with then(j) on the completion thread when it is done. */
static int queue_copy(tfc_gpu_mem *on, void *stream, int kind, void *dst, const void *src, size_t n,
                      tfc_gpu_mem *after1, tfc_gpu_mem *after2, void (*then)(void *), copy_job *j, tfc_status *s) {
  const tfc_gpu_platform *p = tfc_gpu_mem_platform(on);
  int ord = tfc_gpu_mem_ordinal(on);
  if (after1 && tfc_gpu_mem_wait_compute(after1, ord, stream, s)) return JOB_DONE;
  if (after2 && tfc_gpu_mem_wait_compute(after2, ord, stream, s)) return JOB_DONE;
  if (p->copy_async(ord, dst, src, n, kind, stream, s) || tfc_gpu_mem_then(on, stream, then, j, s)) {
    sync_quietly(on, stream);
    return JOB_DONE;
  }
  return JOB_QUEUED;
}

/* ---------------- to host ---------------- */

static int start_to_host(copy_job *j, tfc_allocator *host_allocator, tfc_status *s) {
  tfc_tensor *src = j->src;
  tfc_gpu_mem *m = mem_of(src);
  if (!m) {
    if (tfc_gpu_tensor_in_device_memory(src))
      tfc_status_set(s, TFC_INTERNAL, "a tensor in the device memory of %s has no GPU to copy it from",
                     src->buf->allocator->name);
    else
      j->dst = tfc_tensor_ref(src);
    return JOB_DONE;
  }
  j->dst = tfc_allocator_tensor(host_allocator, src->dtype, src->dims, src->ndims, s);
  if (!j->dst || src->n_bytes == 0) return JOB_DONE;
  tfc_gpu_streams st;
  if (tfc_gpu_mem_streams(m, &st, s)) return JOB_DONE;
  if (!st.d2h) {
    tfc_gpu_mem_platform(m)->copy_to_host(tfc_gpu_mem_ordinal(m), j->dst->data, src->data, src->n_bytes, s);
    return JOB_DONE;
  }
  return queue_copy(m, st.d2h, TFC_GPU_COPY_D2H, j->dst->data, src->data, src->n_bytes, m, NULL, job_complete, j, s);
}

static copy_job *job_new(tfc_tensor *src, tfc_device *gpu, tfc_gpu_copy_done done, void *arg, tfc_status *s) {
  copy_job *j = calloc(1, sizeof *j);
  if (!j) {
    TFC_OOM(s);
    return NULL;
  }
  j->src = tfc_tensor_ref(src);
  j->gpu = gpu;
  j->done = done;
  j->arg = arg;
  return j;
}

void tfc_gpu_copy_to_host(tfc_allocator *host_allocator, tfc_tensor *src, tfc_gpu_copy_done done, void *arg) {
  tfc_status s;
  tfc_status_init(&s);
  copy_job *j = job_new(src, NULL, done, arg, &s);
  if (!j)
    done(arg, &s, NULL);
  else if (start_to_host(j, host_allocator, &s) == JOB_DONE)
    job_end(j, &s);
  tfc_status_fini(&s);
}

/* ---------------- to a device ---------------- */

/* Synchronous copy between GPUs on a platform without streams: through a host buffer. */
static int copy_d2d_sync(tfc_gpu_mem *from, tfc_gpu_mem *to, void *dst, const void *src, size_t n, tfc_status *s) {
  void *tmp = malloc(n);
  if (!tmp) return TFC_OOM(s);
  int code = tfc_gpu_mem_platform(from)->copy_to_host(tfc_gpu_mem_ordinal(from), tmp, src, n, s);
  if (!code) code = tfc_gpu_mem_platform(to)->copy_to_device(tfc_gpu_mem_ordinal(to), dst, tmp, n, s);
  free(tmp);
  return code;
}

/* Second step of a copy between GPUs without peer access: staging -> destination. */
static void staged_to_device(void *arg) {
  copy_job *j = arg;
  tfc_status s;
  tfc_status_init(&s);
  tfc_gpu_mem *dm = tfc_gpu_device_mem(j->gpu);
  tfc_gpu_streams st;
  size_t n = j->dst->n_bytes;
  int queued = JOB_DONE;
  if (!tfc_gpu_mem_streams(dm, &st, &s)) {
    if (st.h2d)
      queued = queue_copy(dm, st.h2d, TFC_GPU_COPY_H2D, j->dst->data, j->staging->data, n, dm, NULL, job_complete,
                          j, &s);
    else
      tfc_gpu_mem_platform(dm)->copy_to_device(tfc_gpu_mem_ordinal(dm), j->dst->data, j->staging->data, n, &s);
  }
  if (queued == JOB_DONE) job_end(j, &s);
  tfc_status_fini(&s);
}

static int device_dtype_ok(const tfc_tensor *t, const tfc_device *gpu, tfc_status *s) {
  if (t->var)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "a variable reference cannot be copied to %s", gpu->name);
  if (t->dtype == TFC_DT_STRING || t->dtype == TFC_DT_RESOURCE || t->dtype == TFC_DT_VARIANT)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "%s tensors live in host memory: a tensor of shape %s cannot be copied to %s",
                          tfc_dtype_name(t->dtype), tfc_tensor_shape_str(t, (char[64]){0}, 64), gpu->name);
  return TFC_OK;
}

static int start_to_device(copy_job *j, tfc_status *s) {
  tfc_device *gpu = j->gpu;
  tfc_tensor *src = j->src;
  tfc_gpu_mem *dm = tfc_gpu_device_mem(gpu);
  if (!dm) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "cannot copy a tensor to %s: it is not a GPU device",
                   gpu ? gpu->name : "(no device)");
    return JOB_DONE;
  }
  if (device_dtype_ok(src, gpu, s)) return JOB_DONE;
  if (src->buf && src->buf->allocator == gpu->allocator) {
    j->dst = tfc_tensor_ref(src);
    return JOB_DONE;
  }
  tfc_gpu_mem *sm = mem_of(src);
  if (!sm && tfc_gpu_tensor_in_device_memory(src)) {
    tfc_status_set(s, TFC_INTERNAL, "a tensor in the device memory of %s has no GPU to copy it from",
                   src->buf->allocator->name);
    return JOB_DONE;
  }
  j->dst = tfc_allocator_tensor(gpu->allocator, src->dtype, src->dims, src->ndims, s);
  size_t n = src->n_bytes;
  if (!j->dst || n == 0) return JOB_DONE;
  const tfc_gpu_platform *dp = tfc_gpu_mem_platform(dm);
  int dord = tfc_gpu_mem_ordinal(dm);
  tfc_gpu_streams dst_st, src_st;
  if (tfc_gpu_mem_streams(dm, &dst_st, s)) return JOB_DONE;
  /* From host memory. */
  if (!sm) {
    if (!dst_st.h2d) {
      dp->copy_to_device(dord, j->dst->data, src->data, n, s);
      return JOB_DONE;
    }
    return queue_copy(dm, dst_st.h2d, TFC_GPU_COPY_H2D, j->dst->data, src->data, n, dm, NULL, job_complete, j, s);
  }
  /* From another GPU (or another logical GPU of the same one). */
  if (tfc_gpu_mem_streams(sm, &src_st, s)) return JOB_DONE;
  if (!src_st.d2d || !dst_st.h2d) {
    copy_d2d_sync(sm, dm, j->dst->data, src->data, n, s);
    return JOB_DONE;
  }
  int sord = tfc_gpu_mem_ordinal(sm);
  int peer = sord == dord || (dp->enable_peer && dp->enable_peer(dord, sord));
  if (peer)
    return queue_copy(sm, src_st.d2d, TFC_GPU_COPY_D2D, j->dst->data, src->data, n, sm, dm, job_complete, j, s);
  j->staging = tfc_tensor_new(src->dtype, src->dims, src->ndims, s);
  if (!j->staging) return JOB_DONE;
  return queue_copy(sm, src_st.d2h, TFC_GPU_COPY_D2H, j->staging->data, src->data, n, sm, NULL, staged_to_device, j,
                    s);
}

void tfc_gpu_copy_to_device(tfc_device *gpu, tfc_tensor *src, tfc_gpu_copy_done done, void *arg) {
  tfc_status s;
  tfc_status_init(&s);
  copy_job *j = job_new(src, gpu, done, arg, &s);
  if (!j)
    done(arg, &s, NULL);
  else if (start_to_device(j, &s) == JOB_DONE)
    job_end(j, &s);
  tfc_status_fini(&s);
}

/* ---------------- blocking forms ---------------- */

/* Waits for the work queued on m's compute stream (none without streams). */
static int sync_compute(tfc_gpu_mem *m, tfc_status *s) {
  tfc_gpu_streams st;
  TFC_TRY(tfc_gpu_mem_streams(m, &st, s));
  return st.compute ? tfc_gpu_mem_platform(m)->stream_sync(tfc_gpu_mem_ordinal(m), st.compute, s) : TFC_OK;
}

tfc_tensor *tfc_gpu_copy_to_host_sync(tfc_allocator *host_allocator, tfc_tensor *src, tfc_status *s) {
  tfc_gpu_mem *m = mem_of(src);
  if (!m) {
    if (!tfc_gpu_tensor_in_device_memory(src)) return tfc_tensor_ref(src);
    tfc_status_set(s, TFC_INTERNAL, "a tensor in the device memory of %s has no GPU to copy it from",
                   src->buf->allocator->name);
    return NULL;
  }
  tfc_tensor *out = tfc_allocator_tensor(host_allocator, src->dtype, src->dims, src->ndims, s);
  if (out && src->n_bytes > 0 &&
      (sync_compute(m, s) ||
       tfc_gpu_mem_platform(m)->copy_to_host(tfc_gpu_mem_ordinal(m), out->data, src->data, src->n_bytes, s))) {
    tfc_tensor_unref(out);
    return NULL;
  }
  return out;
}

tfc_tensor *tfc_gpu_copy_to_device_sync(tfc_device *gpu, tfc_tensor *src, tfc_status *s) {
  tfc_gpu_mem *dm = tfc_gpu_device_mem(gpu);
  if (!dm) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "cannot copy a tensor to %s: it is not a GPU device",
                   gpu ? gpu->name : "(no device)");
    return NULL;
  }
  if (device_dtype_ok(src, gpu, s)) return NULL;
  if (src->buf && src->buf->allocator == gpu->allocator) return tfc_tensor_ref(src);
  tfc_gpu_mem *sm = mem_of(src);
  if (!sm && tfc_gpu_tensor_in_device_memory(src)) {
    tfc_status_set(s, TFC_INTERNAL, "a tensor in the device memory of %s has no GPU to copy it from",
                   src->buf->allocator->name);
    return NULL;
  }
  tfc_tensor *out = tfc_allocator_tensor(gpu->allocator, src->dtype, src->dims, src->ndims, s);
  size_t n = src->n_bytes;
  if (!out || n == 0) return out;
  /* The arena may have handed out memory that kernels still queued on the compute stream use;
   * the source may still be being written on its GPU's. */
  int code = sync_compute(dm, s);
  if (!code && sm) code = sync_compute(sm, s);
  if (!code)
    code = sm ? copy_d2d_sync(sm, dm, out->data, src->data, n, s)
              : tfc_gpu_mem_platform(dm)->copy_to_device(tfc_gpu_mem_ordinal(dm), out->data, src->data, n, s);
  if (code) {
    tfc_tensor_unref(out);
    return NULL;
  }
  return out;
}
