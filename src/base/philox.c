/*
 * philox — Philox4x32-10 and TF's distributions over it (see philox.h for the contract).
 *
 * Written from the published algorithm (Salmon et al., "Parallel random numbers: as easy as
 * 1, 2, 3", SC'11) and the constants and conversion rules TF documents; the order in which
 * samples feed each distribution is TF's, since that order is what makes the bits match.
 */
#include "base/philox.h"

#include "base/half.h"

#include <math.h>
#include <string.h>

/* Philox4x32 round multipliers and the Weyl key increments (golden ratio and sqrt(3) - 1,
 * as 32-bit fractions), from the Philox paper; TF uses the same. */
#define PHILOX_M_A 0xD2511F53u
#define PHILOX_M_B 0xCD9E8D57u
#define PHILOX_W_A 0x9E3779B9u
#define PHILOX_W_B 0xBB67AE85u
#define PHILOX_ROUNDS 10

void tfc_philox_init(tfc_philox *g, uint64_t seed, uint64_t seed2) {
  g->key[0] = (uint32_t)seed;
  g->key[1] = (uint32_t)(seed >> 32);
  g->counter[0] = 0;
  g->counter[1] = 0;
  g->counter[2] = (uint32_t)seed2;
  g->counter[3] = (uint32_t)(seed2 >> 32);
}

/* The key GenerateKey runs the seed block under (TF's fixed constants). */
#define PHILOX_STATELESS_KEY_LO 0x3ec8f720u
#define PHILOX_STATELESS_KEY_HI 0x02461e29u

void tfc_philox_init_stateless(tfc_philox *g, uint64_t s0, uint64_t s1) {
  tfc_philox mix = {.counter = {(uint32_t)s0, (uint32_t)(s0 >> 32), (uint32_t)s1, (uint32_t)(s1 >> 32)},
                    .key = {PHILOX_STATELESS_KEY_LO, PHILOX_STATELESS_KEY_HI}};
  uint32_t m[4];
  tfc_philox_next(&mix, m);
  *g = (tfc_philox){.counter = {0, 0, m[2], m[3]}, .key = {m[0], m[1]}};
}

void tfc_philox_init_key_counter(tfc_philox *g, uint64_t key, uint64_t counter_lo, uint64_t counter_hi) {
  *g = (tfc_philox){.counter = {(uint32_t)counter_lo, (uint32_t)(counter_lo >> 32), (uint32_t)counter_hi,
                                (uint32_t)(counter_hi >> 32)},
                    .key = {(uint32_t)key, (uint32_t)(key >> 32)}};
}

/* TF's Skip adds the 64-bit count to the low half and carries into the high half one word
 * at a time. A count whose high word is all ones and that also carries out of word 0 loses
 * that carry in TF (the high word wraps to 0 before it is added); we keep that quirk so the
 * streams stay identical even there. */
void tfc_philox_skip(tfc_philox *g, uint64_t n) {
  uint32_t lo = (uint32_t)n, hi = (uint32_t)(n >> 32);
  g->counter[0] += lo;
  if (g->counter[0] < lo) hi++;
  g->counter[1] += hi;
  if (g->counter[1] < hi && ++g->counter[2] == 0) g->counter[3]++;
}

void tfc_philox_next(tfc_philox *g, uint32_t out[4]) {
  uint32_t c0 = g->counter[0], c1 = g->counter[1], c2 = g->counter[2], c3 = g->counter[3];
  uint32_t k0 = g->key[0], k1 = g->key[1];
  for (int r = 0; r < PHILOX_ROUNDS; r++) {
    if (r) {
      k0 += PHILOX_W_A;
      k1 += PHILOX_W_B;
    }
    uint64_t p0 = (uint64_t)PHILOX_M_A * c0, p1 = (uint64_t)PHILOX_M_B * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n1 = (uint32_t)p1;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1, n3 = (uint32_t)p0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
  /* 128-bit increment. */
  if (++g->counter[0] == 0 && ++g->counter[1] == 0 && ++g->counter[2] == 0) g->counter[3]++;
}

static float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* 1.m with 23 random mantissa bits is uniform on [1, 2); subtracting 1 is exact. */
float tfc_philox_uint32_to_float(uint32_t x) { return bits_float((127u << 23) | (x & 0x7fffffu)) - 1.0f; }

/* Same with 52 bits: the low 20 bits of x0 on top of all of x1. */
double tfc_philox_uint64_to_double(uint32_t x0, uint32_t x1) {
  uint64_t u = (1023ull << 52) | ((uint64_t)(x0 & 0xfffffu) << 32) | x1;
  double d;
  memcpy(&d, &u, sizeof d);
  return d - 1.0;
}

/* Box-Muller. u1 is kept >= 1e-7 so log() stays finite. The angle is 2*pi*u computed in
 * double and rounded to float, because TF writes it as `2.0f * M_PI * u` (M_PI is a double). */
void tfc_philox_box_muller_float(uint32_t x0, uint32_t x1, float *f0, float *f1) {
  float u1 = tfc_philox_uint32_to_float(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = (float)(2.0 * M_PI * (double)tfc_philox_uint32_to_float(x1));
  const float u2 = sqrtf(-2.0f * logf(u1));
  float s, c;
  sincosf(v1, &s, &c);
  *f0 = s * u2;
  *f1 = c * u2;
}

void tfc_philox_box_muller_double(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double *d0,
                                  double *d1) {
  double u1 = tfc_philox_uint64_to_double(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * tfc_philox_uint64_to_double(x2, x3);
  const double u2 = sqrt(-2.0 * log(u1));
  double s, c;
  sincos(v1, &s, &c);
  *d0 = s * u2;
  *d1 = c * u2;
}

/* ---------------- group fills ---------------- */

static const int group_sizes[TFC_PHILOX_DIST_COUNT][TFC_PHILOX_ELEM_COUNT] = {
    [TFC_PHILOX_UNIFORM] = {[TFC_PHILOX_F32] = 4, [TFC_PHILOX_F64] = 2, [TFC_PHILOX_F16] = 4,
                            [TFC_PHILOX_BF16] = 4},
    [TFC_PHILOX_NORMAL] = {[TFC_PHILOX_F32] = 4, [TFC_PHILOX_F64] = 2, [TFC_PHILOX_F16] = 4,
                           [TFC_PHILOX_BF16] = 4},
    [TFC_PHILOX_TRUNCATED] = {[TFC_PHILOX_F32] = 4, [TFC_PHILOX_F64] = 2, [TFC_PHILOX_F16] = 4,
                              [TFC_PHILOX_BF16] = 4},
    [TFC_PHILOX_UNIFORM_INT] = {[TFC_PHILOX_I32] = 4, [TFC_PHILOX_I64] = 2},
    [TFC_PHILOX_FULL_INT] = {[TFC_PHILOX_I32] = 4, [TFC_PHILOX_I64] = 2},
};
static const int elem_sizes[TFC_PHILOX_ELEM_COUNT] = {4, 8, 2, 2, 4, 8};

int tfc_philox_group_size(int dist, int elem) {
  if (dist < 0 || dist >= TFC_PHILOX_DIST_COUNT || elem < 0 || elem >= TFC_PHILOX_ELEM_COUNT) return 0;
  return group_sizes[dist][elem];
}

int64_t tfc_philox_n_groups(const tfc_philox_fill *f) {
  int64_t k = tfc_philox_group_size(f->dist, f->elem);
  return k ? (f->size + k - 1) / k : 0;
}

/* One group's values in their element type (at most 4 elements, 32 bytes). */
typedef union group_vals {
  float f32[4];
  double f64[2];
  uint16_t u16[4];
  int32_t i32[4];
  int64_t i64[2];
} group_vals;

/* Stores float results into the group in the fill's element type. */
static void put_float(group_vals *v, int elem, int i, float x) {
  if (elem == TFC_PHILOX_F32) v->f32[i] = x;
  else if (elem == TFC_PHILOX_F16) v->u16[i] = tfc_float_to_half(x);
  else v->u16[i] = tfc_float_to_bfloat16(x);
}

/* Distributions that use exactly one generator call per group. */
static void one_call_group(const tfc_philox_fill *f, const uint32_t s[4], group_vals *v) {
  switch (f->dist) {
    case TFC_PHILOX_UNIFORM:
      if (f->elem == TFC_PHILOX_F64) {
        for (int i = 0; i < 2; i++) v->f64[i] = tfc_philox_uint64_to_double(s[2 * i], s[2 * i + 1]);
      } else if (f->elem == TFC_PHILOX_F32) {
        for (int i = 0; i < 4; i++) v->f32[i] = tfc_philox_uint32_to_float(s[i]);
      } else {
        /* half and bfloat16 take the low 16 bits of each sample: 10 (half) or 7 (bfloat16)
         * mantissa bits of 1.m - 1, which is exact in the narrow type. */
        const int mant_bits = f->elem == TFC_PHILOX_F16 ? 10 : 7;
        for (int i = 0; i < 4; i++) {
          uint32_t m = (s[i] & 0xffffu) & ((1u << mant_bits) - 1);
          put_float(v, f->elem, i, ldexpf((float)m, -mant_bits));
        }
      }
      break;
    case TFC_PHILOX_NORMAL:
      if (f->elem == TFC_PHILOX_F64) {
        tfc_philox_box_muller_double(s[0], s[1], s[2], s[3], &v->f64[0], &v->f64[1]);
      } else {
        for (int i = 0; i < 4; i += 2) {
          float a, b;
          tfc_philox_box_muller_float(s[i], s[i + 1], &a, &b);
          put_float(v, f->elem, i, a);
          put_float(v, f->elem, i + 1, b);
        }
      }
      break;
    case TFC_PHILOX_UNIFORM_INT:
      /* (unsigned) lo + sample % range, wrapping: the sum is always in [lo, hi). */
      if (f->elem == TFC_PHILOX_I32) {
        const uint32_t range = (uint32_t)f->range;
        for (int i = 0; i < 4; i++) v->i32[i] = (int32_t)((uint32_t)f->lo + s[i] % range);
      } else {
        for (int i = 0; i < 2; i++) {
          uint64_t bits = (uint64_t)s[2 * i] | (uint64_t)s[2 * i + 1] << 32;
          v->i64[i] = (int64_t)((uint64_t)f->lo + bits % f->range);
        }
      }
      break;
    case TFC_PHILOX_FULL_INT:
      if (f->elem == TFC_PHILOX_I32) {
        for (int i = 0; i < 4; i++) v->i32[i] = (int32_t)s[i];
      } else {
        for (int i = 0; i < 2; i++) v->i64[i] = (int64_t)((uint64_t)s[2 * i] | (uint64_t)s[2 * i + 1] << 32);
      }
      break;
    default:
      break;
  }
}

/* TF's SingleSampleAdapter: hands out the four words of each call one at a time. */
typedef struct single_sampler {
  tfc_philox *g;
  uint32_t buf[4];
  int used;
} single_sampler;

static uint32_t single_next(single_sampler *a) {
  if (a->used >= 4) {
    tfc_philox_next(a->g, a->buf);
    a->used = 0;
  }
  return a->buf[a->used++];
}

/* Truncated normal: Box-Muller pairs, keeping values with |x| < 2 in order until the group
 * is full. Each group starts at its own window of the stream (see philox.h). */
static void truncated_group(const tfc_philox_fill *f, int64_t group, int k, group_vals *v) {
  tfc_philox g = f->base;
  tfc_philox_skip(&g, (uint64_t)group * (uint64_t)(k * TFC_PHILOX_SAMPLES_PER_OUTPUT / 4));
  single_sampler a = {.g = &g, .used = 4};
  int n = 0;
  if (f->elem == TFC_PHILOX_F64) {
    for (;;) {
      uint32_t x0 = single_next(&a), x1 = single_next(&a), x2 = single_next(&a), x3 = single_next(&a);
      double d[2];
      tfc_philox_box_muller_double(x0, x1, x2, x3, &d[0], &d[1]);
      for (int i = 0; i < 2; i++) {
        if (fabs(d[i]) < 2.0) {
          v->f64[n++] = d[i];
          if (n == k) return;
        }
      }
    }
  }
  for (;;) {
    uint32_t x0 = single_next(&a), x1 = single_next(&a);
    float x[2];
    tfc_philox_box_muller_float(x0, x1, &x[0], &x[1]);
    for (int i = 0; i < 2; i++) {
      if (fabsf(x[i]) < 2.0f) {
        put_float(v, f->elem, n++, x[i]);
        if (n == k) return;
      }
    }
  }
}

void tfc_philox_fill_groups(const tfc_philox_fill *f, int64_t begin, int64_t end) {
  const int k = tfc_philox_group_size(f->dist, f->elem);
  if (!k || begin >= end) return;
  const size_t esz = (size_t)elem_sizes[f->elem];
  char *out = f->out;
  tfc_philox g = f->base;
  if (f->dist != TFC_PHILOX_TRUNCATED) tfc_philox_skip(&g, (uint64_t)begin);
  for (int64_t grp = begin; grp < end; grp++) {
    group_vals v;
    if (f->dist == TFC_PHILOX_TRUNCATED) {
      truncated_group(f, grp, k, &v);
    } else {
      uint32_t s[4];
      tfc_philox_next(&g, s);
      one_call_group(f, s, &v);
    }
    int64_t first = grp * k, n = f->size - first < k ? f->size - first : k;
    memcpy(out + (size_t)first * esz, &v, (size_t)n * esz);
  }
}
