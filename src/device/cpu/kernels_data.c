/*
 * kernels_data — CPU kernels of the data family (ops/ops_data.def). The queue and reader
 * kernels live in kernels_queue.c and kernels_reader.c; this file registers them and holds
 * the three small ops input pipelines build beside them:
 *   - RandomShuffle: a Fisher-Yates shuffle of dimension 0 driven by the node's own
 *     Philox4x32-10 generator (seed/seed2; both 0: a random seed), so a fixed seed gives the
 *     same permutation sequence run after run (not TF's bit stream: TF draws through its
 *     own distribution helpers).
 *   - Assert: TF's INVALID_ARGUMENT "assertion failed: [d0] [d1] ..." where each datum is
 *     summarized as TF 1.15's Tensor::SummarizeValue(summarize) prints it.
 *   - CountUpTo: increments a reference variable up to limit, journaled like every variable
 *     write (state/variable.h), and OUT_OF_RANGE "Reached limit of <limit>" at the limit.
 */
#include <float.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/philox.h"
#include "base/strbuf.h"
#include "device/cpu/cpu_kernels.h"
#include "device/cpu/kernels_data_int.h"
#include "device/device.h"
#include "state/variable.h"

/* ---------------- RandomShuffle ---------------- */

typedef struct shuffle_state {
  pthread_mutex_t mu;
  tfc_philox gen; /* guarded by mu */
} shuffle_state;

static uint64_t random_seed64(void) {
  uint64_t v;
  if (getrandom(&v, sizeof v, 0) == (ssize_t)sizeof v) return v;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) * 0x9E3779B97F4A7C15ull ^ (uintptr_t)&v;
}

static int shuffle_init(const tfc_node *n, void **state, tfc_status *s) {
  int64_t seed = 0, seed2 = 0;
  TFC_TRY(tfc_kernel_attr_int(n, "seed", &seed, s));
  TFC_TRY(tfc_kernel_attr_int(n, "seed2", &seed2, s));
  shuffle_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  pthread_mutex_init(&st->mu, NULL);
  if (seed == 0 && seed2 == 0) {
    seed = (int64_t)random_seed64();
    seed2 = (int64_t)random_seed64();
  }
  tfc_philox_init(&st->gen, (uint64_t)seed, (uint64_t)seed2);
  *state = st;
  return TFC_OK;
}

static void shuffle_free(void *state) {
  shuffle_state *st = state;
  pthread_mutex_destroy(&st->mu);
  free(st);
}

static int shuffle_compute(tfc_kernel_ctx *c) {
  shuffle_state *st = c->state;
  tfc_tensor *x = c->inputs[0];
  int64_t n = x->ndims ? x->dims[0] : 1;
  if (n <= 1) {
    tfc_kernel_set_output(c, 0, tfc_tensor_ref(x));
    return TFC_OK;
  }
  int64_t *perm = malloc(sizeof *perm * (size_t)n);
  if (!perm) return TFC_OOM(c->status);
  for (int64_t i = 0; i < n; i++) perm[i] = i;
  /* Fisher-Yates with 64-bit draws: the modulo bias is below 2^-40 for any real dim 0. */
  pthread_mutex_lock(&st->mu);
  uint32_t r[4];
  for (int64_t i = n - 1; i > 0; i -= 2) {
    tfc_philox_next(&st->gen, r);
    uint64_t a = ((uint64_t)r[0] << 32) | r[1], b = ((uint64_t)r[2] << 32) | r[3];
    int64_t j = (int64_t)(a % (uint64_t)(i + 1));
    int64_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    if (i - 1 > 0) {
      j = (int64_t)(b % (uint64_t)i);
      t = perm[i - 1]; perm[i - 1] = perm[j]; perm[j] = t;
    }
  }
  pthread_mutex_unlock(&st->mu);
  tfc_tensor *y = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (y) {
    int64_t per = x->n_elems / n;
    if (x->dtype == TFC_DT_STRING) {
      const tfc_tstring *src = tfc_tensor_strings(x);
      tfc_tstring *dst = tfc_tensor_strings(y);
      for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < per; k++)
          if (tfc_tstring_assign(&dst[i * per + k], src[perm[i] * per + k].data, src[perm[i] * per + k].len, c->status))
            break;
    } else {
      size_t row = x->n_bytes / (size_t)n;
      for (int64_t i = 0; i < n; i++) memcpy((char *)y->data + (size_t)i * row, (const char *)x->data + (size_t)perm[i] * row, row);
    }
  }
  free(perm);
  return c->status->code;
}

/* ---------------- Assert ---------------- */

/* strings::StrCat of a float / double: the shortest of %.6g / %.9g (%.15g / %.17g) that
 * reads back the same. */
static void put_float(tfc_strbuf *b, double v, int is_double) {
  char buf[64];
  if (v != v) { tfc_strbuf_puts(b, "nan"); return; }
  if (v > DBL_MAX) { tfc_strbuf_puts(b, "inf"); return; }
  if (v < -DBL_MAX) { tfc_strbuf_puts(b, "-inf"); return; }
  if (is_double) {
    snprintf(buf, sizeof buf, "%.*g", DBL_DIG, v);
    if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.*g", DBL_DIG + 2, v);
  } else {
    snprintf(buf, sizeof buf, "%.*g", FLT_DIG, v);
    if (strtof(buf, NULL) != (float)v) snprintf(buf, sizeof buf, "%.*g", FLT_DIG + 3, v);
  }
  tfc_strbuf_puts(b, buf);
}

/* absl::CEscape: \n \r \t \" \' \\ escaped, other non-printables as octal. */
static void put_cescaped(tfc_strbuf *b, const tfc_tstring *t) {
  for (size_t i = 0; i < t->len; i++) {
    unsigned char ch = (unsigned char)t->data[i];
    switch (ch) {
      case '\n': tfc_strbuf_puts(b, "\\n"); break;
      case '\r': tfc_strbuf_puts(b, "\\r"); break;
      case '\t': tfc_strbuf_puts(b, "\\t"); break;
      case '"': tfc_strbuf_puts(b, "\\\""); break;
      case '\'': tfc_strbuf_puts(b, "\\'"); break;
      case '\\': tfc_strbuf_puts(b, "\\\\"); break;
      default:
        if (ch < 0x20 || ch >= 0x7f) tfc_strbuf_printf(b, "\\%03o", ch);
        else tfc_strbuf_printf(b, "%c", ch);
    }
  }
}

static int printable(int dtype) {
  switch (dtype) {
    case TFC_DT_FLOAT: case TFC_DT_DOUBLE: case TFC_DT_INT32: case TFC_DT_INT64: case TFC_DT_UINT8:
    case TFC_DT_INT8: case TFC_DT_INT16: case TFC_DT_UINT16: case TFC_DT_UINT32: case TFC_DT_UINT64:
    case TFC_DT_BOOL: case TFC_DT_STRING: return 1;
    default: return 0;
  }
}

static void put_elem(tfc_strbuf *b, const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: put_float(b, ((const float *)t->data)[i], 0); break;
    case TFC_DT_DOUBLE: put_float(b, ((const double *)t->data)[i], 1); break;
    case TFC_DT_UINT64: tfc_strbuf_printf(b, "%" PRIu64, ((const uint64_t *)t->data)[i]); break;
    case TFC_DT_STRING: put_cescaped(b, &tfc_tensor_strings(t)[i]); break;
    default: tfc_strbuf_printf(b, "%lld", (long long)tfc_tensor_get_i64(t, i)); break;
  }
}

/* TF's PrintOneDim: nested brackets per dimension, stopping after `limit` elements with
 * "..." inside a cut row. */
static void print_dim(tfc_strbuf *b, const tfc_tensor *t, int dim, int64_t limit, int64_t *idx) {
  if (*idx >= limit) return;
  int64_t count = t->dims[dim];
  if (dim == t->ndims - 1) {
    for (int64_t i = 0; i < count; i++) {
      if (*idx >= limit) {
        if (dim != 0) tfc_strbuf_puts(b, "...");
        return;
      }
      if (i > 0) tfc_strbuf_puts(b, " ");
      put_elem(b, t, (*idx)++);
    }
    return;
  }
  for (int64_t i = 0; i < count; i++) {
    int open = 0;
    if (*idx < limit) {
      tfc_strbuf_puts(b, "[");
      open = 1;
    }
    print_dim(b, t, dim + 1, limit, idx);
    if (*idx < limit || open) tfc_strbuf_puts(b, "]");
  }
}

/* Tensor::SummarizeValue(max_entries) of TF 1.15 (print_v2 off). */
static void summarize(tfc_strbuf *b, const tfc_tensor *t, int64_t max_entries) {
  if (!printable(t->dtype)) {
    tfc_strbuf_puts(b, "<unprintable>");
    return;
  }
  int64_t limit = max_entries < 0 || max_entries > t->n_elems ? t->n_elems : max_entries;
  if (t->ndims == 0) {
    for (int64_t i = 0; i < limit; i++) {
      if (i) tfc_strbuf_puts(b, " ");
      put_elem(b, t, i);
    }
  } else {
    int64_t idx = 0;
    print_dim(b, t, 0, limit, &idx);
  }
  if (t->n_elems > limit) tfc_strbuf_puts(b, "...");
}

static int assert_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *cond = c->inputs[0];
  /* TF's IsLegacyScalar: rank 0, or one element in any rank. */
  if (cond->n_elems != 1) {
    char sh[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "In[0] should be a scalar: %s", tfc_tensor_shape_str(cond, sh, sizeof sh));
  }
  if (*(const uint8_t *)cond->data) return TFC_OK;
  int64_t n = 3;
  tfc_node_attr_int(c->node, "summarize", &n);
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_strbuf_puts(&b, "assertion failed: ");
  for (int i = 1; i < c->n_inputs; i++) {
    if (i > 1) tfc_strbuf_puts(&b, " ");
    tfc_strbuf_puts(&b, "[");
    summarize(&b, c->inputs[i], n);
    tfc_strbuf_puts(&b, "]");
  }
  tfc_status_set(c->status, TFC_INVALID_ARGUMENT, "%s", tfc_strbuf_str(&b));
  tfc_strbuf_fini(&b);
  return c->status->code;
}

/* ---------------- CountUpTo ---------------- */

static int count_up_to_compute(tfc_kernel_ctx *c) {
  int64_t limit = 0;
  tfc_node_attr_int(c->node, "limit", &limit);
  tfc_var_update u;
  if (tfc_kernel_update_begin(c, (int[]){0}, 1, 1, &u)) return c->status->code;
  const tfc_tensor *old = u.old[0];
  tfc_tensor *before = NULL;
  if (old->ndims != 0) {
    char sh[TFC_SHAPE_STR_MAX];
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input is not a scalar: %s", tfc_tensor_shape_str(old, sh, sizeof sh));
  } else {
    int64_t v = tfc_tensor_get_i64(old, 0);
    if (v >= limit) {
      tfc_kernel_error(c, TFC_OUT_OF_RANGE, "Reached limit of %lld", (long long)limit);
    } else if ((before = tfc_kernel_alloc_output(c, 0, old->dtype, NULL, 0))) {
      tfc_tensor *next = tfc_kernel_update_alloc(c, &u, 0);
      if (next && old->dtype == TFC_DT_INT32) {
        *(int32_t *)before->data = (int32_t)v;
        *(int32_t *)next->data = (int32_t)(v + 1);
      } else if (next) {
        *(int64_t *)before->data = v;
        *(int64_t *)next->data = v + 1;
      }
    }
  }
  return tfc_kernel_update_end(c, &u);
}

static const tfc_kernel_def data_kernels[] = {
    {.op = TFC_OP_RandomShuffle, .flags = TFC_KF_SHARED_STATE, .init = shuffle_init, .compute = shuffle_compute,
     .free_state = shuffle_free},
    {.op = TFC_OP_Assert, .host_memory_in = 0xffffffffu, .compute = assert_compute},
    {.op = TFC_OP_CountUpTo, .type_attr = "T", .types = TFC_TYPES_INT, .compute = count_up_to_compute},
};

int tfc_cpu_kernels_data(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, data_kernels, (int)(sizeof data_kernels / sizeof data_kernels[0]), s));
  TFC_TRY(tfc_cpu_kernels_queue(t, s));
  return tfc_cpu_kernels_reader(t, s);
}
