/*
 * philox — TensorFlow's Philox4x32-10 counter-based generator and its distributions, bit for
 * bit (tensorflow/core/lib/random/philox_random.h and random_distributions.h; facts in
 * reference/tf-facts.md §5.5).
 *
 * The generator is a pure function of a 64-bit key and a 128-bit counter: one call maps the
 * counter through ten Philox rounds to four uint32 outputs and then increments the counter.
 * Because it is counter-based, jumping ahead (tfc_philox_skip) is O(1), which is how TF makes
 * random outputs independent of threading: output group g always uses counter base + g.
 *
 * Seeding follows TF's PhiloxRandom(seed, seed2): key = seed (low word, high word), counter
 * words 2 and 3 = seed2, words 0 and 1 = 0. The stateless ops (StatelessRandom*) derive the
 * state from a two-value seed instead (tfc_philox_init_stateless, TF's GenerateKey) or take a
 * 64-bit key and a 128-bit counter as inputs (tfc_philox_init_key_counter).
 *
 * Distributions. TF fills an output in "groups": one group is what one distribution call
 * returns (4 floats/halves/bfloat16s/int32s, or 2 doubles/int64s), and for every distribution
 * but the truncated normal one group consumes exactly one generator call. The truncated normal
 * rejects samples with |x| >= 2, so a group may use a variable number of calls; TF gives each
 * group its own window of 256 samples per output element (a skip of group_size * 256 / 4
 * calls per group) and draws single uint32s from it. tfc_philox_fill_groups reproduces this
 * for any [begin, end) range of groups, so callers may split an output over threads freely
 * and get the same bits.
 *
 * Float conversions depend on libm's logf/log, sqrtf/sqrt and sincosf/sincos, as TF's do
 * (TF calls the same glibc functions on Linux); the fixtures test checks them against TF.
 *
 * Everything here is plain computation on caller-owned structs: thread-safe as long as one
 * tfc_philox is not advanced by two threads at once (the kernels lock around that).
 */
#ifndef TFC_BASE_PHILOX_H
#define TFC_BASE_PHILOX_H

#include <stdint.h>

typedef struct tfc_philox {
  uint32_t counter[4]; /* 128-bit counter, least significant word first */
  uint32_t key[2];
} tfc_philox;

/* TF's PhiloxRandom(seed, seed2). */
void tfc_philox_init(tfc_philox *g, uint64_t seed, uint64_t seed2);
/* TF's GenerateKey for the stateless ops' seed (s0, s1): one Philox block of the counter
 * {lo(s0), hi(s0), lo(s1), hi(s1)} under a fixed key gives four words m; the state is then
 * key {m0, m1}, counter {0, 0, m2, m3}. */
void tfc_philox_init_stateless(tfc_philox *g, uint64_t s0, uint64_t s1);
/* The V2 stateless ops' state: key and the counter's low and high 64 bits, low words first. */
void tfc_philox_init_key_counter(tfc_philox *g, uint64_t key, uint64_t counter_lo, uint64_t counter_hi);
/* Advances the 128-bit counter by n calls (TF's Skip). */
void tfc_philox_skip(tfc_philox *g, uint64_t n);
/* One call: the ten-round block of the current counter into out, then counter += 1. */
void tfc_philox_next(tfc_philox *g, uint32_t out[4]);

/* The conversions TF's distributions are built from. */
float tfc_philox_uint32_to_float(uint32_t x);           /* [0, 1), 23 random mantissa bits */
double tfc_philox_uint64_to_double(uint32_t x0, uint32_t x1); /* [0, 1); x0 is the high word */
void tfc_philox_box_muller_float(uint32_t x0, uint32_t x1, float *f0, float *f1);
void tfc_philox_box_muller_double(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double *d0,
                                  double *d1);

/* What a fill produces. Values are part of no ABI; _COUNT closes each list. */
enum tfc_philox_dist {
  TFC_PHILOX_UNIFORM = 0,     /* [0, 1) */
  TFC_PHILOX_NORMAL = 1,      /* standard normal, Box-Muller */
  TFC_PHILOX_TRUNCATED = 2,   /* standard normal restricted to |x| < 2, by rejection */
  TFC_PHILOX_UNIFORM_INT = 3, /* [lo, lo + range), TF's modulo mapping (slightly biased) */
  TFC_PHILOX_FULL_INT = 4,    /* the generator's raw bits: one word per 32-bit element, two per
                                 64-bit one (low word first); I32 and I64 also carry uint32 and
                                 uint64 */
  TFC_PHILOX_DIST_COUNT = 5
};
enum tfc_philox_elem {
  TFC_PHILOX_F32 = 0,
  TFC_PHILOX_F64 = 1,
  TFC_PHILOX_F16 = 2,  /* IEEE half, stored as uint16_t bits */
  TFC_PHILOX_BF16 = 3, /* bfloat16, stored as uint16_t bits */
  TFC_PHILOX_I32 = 4,  /* UNIFORM_INT and FULL_INT only */
  TFC_PHILOX_I64 = 5,  /* UNIFORM_INT and FULL_INT only */
  TFC_PHILOX_ELEM_COUNT = 6
};

/* Samples reserved per output element per kernel run (TF's ReserveRandomOutputs multiplier,
 * also the per-element window of the truncated normal). */
#define TFC_PHILOX_SAMPLES_PER_OUTPUT 256

/* Elements per group for (dist, elem); 0 when the pair is not a TF distribution. */
int tfc_philox_group_size(int dist, int elem);

/* One fill job: `out` holds `size` elements of `elem`; `base` is the generator state the
 * kernel reserved for this run (copied, never advanced). lo/range only for UNIFORM_INT
 * (range = (unsigned)hi - (unsigned)lo, nonzero). */
typedef struct tfc_philox_fill {
  tfc_philox base;
  int dist, elem;
  int64_t lo;
  uint64_t range;
  void *out;
  int64_t size;
} tfc_philox_fill;

/* Number of groups covering f->size elements (the last one may be partial). */
int64_t tfc_philox_n_groups(const tfc_philox_fill *f);
/* Writes groups [begin, end) (elements [begin * K, min(end * K, size))). The values of a
 * group depend only on its index, so disjoint ranges may run concurrently on one job. */
void tfc_philox_fill_groups(const tfc_philox_fill *f, int64_t begin, int64_t end);

#endif
