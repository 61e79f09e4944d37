/* Unit tests of the best-fit-with-coalescing arena: rounding and alignment, best fit, TF's split
 * rule, coalescing in every order and never across regions, region growth with and without
 * allow_growth, the out-of-memory message, region allocator failures, statistics, the
 * description, a randomized run against a shadow model of the memory, and many threads.
 *
 * The region allocator is a counting fake with three kinds of memory: the heap (aligned_alloc),
 * one preallocated buffer handed out front to back (so consecutive regions touch, and the shadow
 * model covers every region), and "virtual" addresses that are never touched (for regions of
 * hundreds of MiB). */
#include <pthread.h>
#include <stdint.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "device/gpu/bfc.h"
#include "harness.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

enum { FAKE_HEAP = 0, FAKE_BUFFER = 1, FAKE_VIRTUAL = 2 };

typedef struct fake {
  int kind;
  int fail;      /* nonzero: alloc fails with fail_code */
  int fail_code; /* RESOURCE_EXHAUSTED when 0 */
  int n_allocs, n_frees;
  size_t sizes[64]; /* of each successful alloc, in order */
  char *buffer;     /* FAKE_BUFFER */
  size_t buffer_size, buffer_used;
  uintptr_t next_virtual;
} fake;

static int fake_alloc(void *arg, size_t bytes, void **out, tfc_status *s) {
  fake *f = arg;
  if (f->fail) {
    int code = f->fail_code ? f->fail_code : TFC_RESOURCE_EXHAUSTED;
    return tfc_status_set(s, code, "fake device has no room for %zu bytes", bytes);
  }
  void *p = NULL;
  if (f->kind == FAKE_HEAP) {
    p = aligned_alloc(256, bytes);
  } else if (f->kind == FAKE_BUFFER) {
    if (bytes <= f->buffer_size - f->buffer_used) {
      p = f->buffer + f->buffer_used;
      f->buffer_used += bytes;
    }
  } else {
    p = (void *)f->next_virtual;
    f->next_virtual += (bytes + 4095) & ~(uintptr_t)4095;
  }
  if (!p) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "fake host out of memory");
  if (f->n_allocs < 64) f->sizes[f->n_allocs] = bytes;
  f->n_allocs++;
  *out = p;
  return TFC_OK;
}

static void fake_free(void *arg, void *p) {
  fake *f = arg;
  f->n_frees++;
  if (f->kind == FAKE_HEAP) free(p);
}

static tfc_bfc *make(fake *f, int kind, int64_t limit, int allow_growth) {
  memset(f, 0, sizeof *f);
  f->kind = kind;
  f->next_virtual = (uintptr_t)1 << 44;
  if (kind == FAKE_BUFFER) {
    f->buffer_size = (size_t)limit;
    f->buffer = aligned_alloc(256, f->buffer_size);
    if (!f->buffer) tfc_test_fail(__FILE__, __LINE__, "no host memory for the fake buffer");
  }
  tfc_bfc_region_fns fns = {fake_alloc, fake_free, f};
  tfc_bfc *b = tfc_bfc_new("GPU_0_bfc", limit, allow_growth, &fns);
  if (!b) tfc_test_fail(__FILE__, __LINE__, "tfc_bfc_new failed");
  return b;
}

/* Frees the arena, checks that no allocation was left and every region went back. */
static void finish(tfc_bfc *b, fake *f) {
  EXPECT_EQ(tfc_bfc_free(b), 0);
  EXPECT_EQ(f->n_frees, f->n_allocs);
  free(f->buffer);
}

static void *must_alloc(tfc_bfc *b, size_t n) {
  tfc_status s;
  tfc_status_init(&s);
  void *p = tfc_bfc_alloc(b, n, &s);
  if (!p) tfc_test_fail(__FILE__, __LINE__, "alloc %zu: %s", n, tfc_status_msg(&s));
  tfc_status_fini(&s);
  return p;
}

/* Allocates expecting failure; returns the message (caller frees) after checking the code. */
static char *must_fail(tfc_bfc *b, size_t n) {
  tfc_status s;
  tfc_status_init(&s);
  void *p = tfc_bfc_alloc(b, n, &s);
  if (p) tfc_test_fail(__FILE__, __LINE__, "alloc %zu unexpectedly succeeded", n);
  EXPECT_EQ(s.code, TFC_RESOURCE_EXHAUSTED);
  char *msg = strdup(tfc_status_msg(&s));
  tfc_status_fini(&s);
  return msg;
}

static char *describe(tfc_bfc *b) {
  tfc_strbuf sb;
  tfc_strbuf_init(&sb);
  tfc_bfc_describe(b, &sb);
  char *out = strdup(tfc_strbuf_str(&sb));
  tfc_strbuf_fini(&sb);
  return out;
}

/* The "largest free chunk N" line of the description. */
static long long largest_free(tfc_bfc *b) {
  char *d = describe(b);
  const char *at = strstr(d, "largest free chunk ");
  long long v = at ? atoll(at + strlen("largest free chunk ")) : -1;
  free(d);
  return v;
}

static int count_substr(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static void bfc_rounds_requests_to_256_bytes_and_aligns_them(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 1 * (int64_t)MiB, 0);
  static const size_t req[] = {1, 255, 256, 257, 511, 512, 1000, 4096, 4097};
  static const size_t want[] = {256, 256, 256, 512, 512, 512, 1024, 4096, 4352};
  void *p[9];
  for (int i = 0; i < 9; i++) {
    p[i] = must_alloc(b, req[i]);
    EXPECT_EQ((uintptr_t)p[i] % 256, 0);
    EXPECT_EQ(tfc_bfc_size(b, p[i]), want[i]);
    memset(p[i], 0xab, req[i]);
  }
  /* n == 0 gives a real, distinct 256-byte chunk. */
  void *z1 = must_alloc(b, 0), *z2 = must_alloc(b, 0);
  EXPECT_TRUE(z1 != z2);
  EXPECT_EQ(tfc_bfc_size(b, z1), 256);
  EXPECT_EQ(tfc_bfc_size(b, z2), 256);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_in_use, 256 + 256 + 256 + 512 + 512 + 512 + 1024 + 4096 + 4352 + 512);
  /* Pointers that are not allocations have no size. */
  EXPECT_EQ(tfc_bfc_size(b, (char *)p[0] + 128), 0);
  EXPECT_EQ(tfc_bfc_size(b, NULL), 0);
  for (int i = 0; i < 9; i++) tfc_bfc_release(b, p[i]);
  tfc_bfc_release(b, z1);
  tfc_bfc_release(b, z2);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_in_use, 0);
  EXPECT_EQ(largest_free(b), (long long)MiB);
  finish(b, &f);
}

static void bfc_best_fit_takes_the_smallest_chunk_that_fits(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 1 * (int64_t)MiB, 0);
  /* a (1 KiB), c (4 KiB), d (2 KiB), each followed by a guard so they cannot merge. */
  char *a = must_alloc(b, 1024);
  void *g1 = must_alloc(b, 256);
  char *c = must_alloc(b, 4096);
  void *g2 = must_alloc(b, 256);
  char *d = must_alloc(b, 2048);
  void *g3 = must_alloc(b, 256);
  EXPECT_TRUE(c == a + 1024 + 256);
  EXPECT_TRUE(d == c + 4096 + 256);
  tfc_bfc_release(b, a);
  tfc_bfc_release(b, c);
  tfc_bfc_release(b, d);
  /* 1536 fits c, d and the tail of the region: d is the smallest; not split (2048 < 2 * 1536). */
  char *x = must_alloc(b, 1500);
  EXPECT_TRUE(x == d);
  EXPECT_EQ(tfc_bfc_size(b, x), 2048);
  /* 3000 fits only c and the tail: c, whole. */
  char *y = must_alloc(b, 3000);
  EXPECT_TRUE(y == c);
  EXPECT_EQ(tfc_bfc_size(b, y), 4096);
  /* 1024 fits exactly a. */
  char *z = must_alloc(b, 1024);
  EXPECT_TRUE(z == a);
  /* Among chunks of equal size the lowest address wins: free two 1 KiB chunks, take one. */
  char *e = must_alloc(b, 1024), *g4 = must_alloc(b, 256), *h = must_alloc(b, 1024), *g5 = must_alloc(b, 256);
  tfc_bfc_release(b, h);
  tfc_bfc_release(b, z);
  EXPECT_TRUE(must_alloc(b, 800) == a);
  EXPECT_TRUE(must_alloc(b, 800) == h);
  void *all[] = {a, g1, y, g2, x, g3, e, g4, h, g5};
  for (size_t i = 0; i < TFC_ARRAY_SIZE(all); i++) tfc_bfc_release(b, all[i]);
  EXPECT_EQ(largest_free(b), (long long)MiB);
  finish(b, &f);
}

static void bfc_splits_only_when_tf_would(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 1 * (int64_t)MiB, 0);
  char *a = must_alloc(b, 1024);
  void *guard = must_alloc(b, 256);
  tfc_bfc_release(b, a);
  /* 768 of a 1 KiB chunk: 1024 < 2 * 768 and the 256-byte rest is small, so no split. */
  char *p = must_alloc(b, 768);
  EXPECT_TRUE(p == a);
  EXPECT_EQ(tfc_bfc_size(b, p), 1024);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_in_use, 1024 + 256);
  tfc_bfc_release(b, p);
  /* 512: exactly half, split; the other half serves the next 512. */
  p = must_alloc(b, 512);
  EXPECT_TRUE(p == a);
  EXPECT_EQ(tfc_bfc_size(b, p), 512);
  char *q = must_alloc(b, 512);
  EXPECT_TRUE(q == a + 512);
  tfc_bfc_release(b, p);
  tfc_bfc_release(b, q);
  tfc_bfc_release(b, guard);
  finish(b, &f);

  /* A remainder of 128 MiB or more is split off even from a chunk less than twice the request. */
  b = make(&f, FAKE_VIRTUAL, 384 * (int64_t)MiB, 0);
  char *big = must_alloc(b, 200 * MiB);
  EXPECT_EQ(tfc_bfc_size(b, big), 200 * MiB);
  EXPECT_EQ(largest_free(b), (long long)(184 * MiB));
  /* 100 MiB of the 184 MiB rest: remainder 84 MiB < 128 MiB and 184 < 200, so no split. */
  char *mid = must_alloc(b, 100 * MiB);
  EXPECT_TRUE(mid == big + 200 * MiB);
  EXPECT_EQ(tfc_bfc_size(b, mid), 184 * MiB);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_in_use, (long long)(384 * MiB));
  EXPECT_EQ(largest_free(b), 0);
  tfc_bfc_release(b, big);
  tfc_bfc_release(b, mid);
  EXPECT_EQ(largest_free(b), (long long)(384 * MiB));
  finish(b, &f);
}

static void bfc_freed_neighbours_merge_back_in_every_order(void) {
  static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 64 * (int64_t)KiB, 0);
  for (int o = 0; o < 6; o++) {
    /* Three chunks and a guard at the end of the region: the region is fully used. */
    char *p[3] = {must_alloc(b, 4 * KiB), must_alloc(b, 8 * KiB), must_alloc(b, 16 * KiB)};
    char *tail = must_alloc(b, 36 * KiB);
    EXPECT_TRUE(p[1] == p[0] + 4 * KiB && p[2] == p[1] + 8 * KiB && tail == p[2] + 16 * KiB);
    EXPECT_EQ(largest_free(b), 0);
    tfc_bfc_release(b, p[orders[o][0]]);
    tfc_bfc_release(b, p[orders[o][1]]);
    tfc_bfc_release(b, p[orders[o][2]]);
    /* The three merged into one 28 KiB chunk: a 28 KiB request gets it whole, at p[0]. */
    EXPECT_EQ(largest_free(b), (long long)(28 * KiB));
    char *d = describe(b);
    EXPECT_CONTAINS(d, "bin 6 (16384 to 32767 bytes): 0 in use (0 bytes), 1 free (28672 bytes)\n");
    EXPECT_CONTAINS(d, "bin 7 (32768 to 65535 bytes): 1 in use (36864 bytes), 0 free (0 bytes)\n");
    EXPECT_EQ(count_substr(d, " 1 free ("), 1);
    EXPECT_EQ(count_substr(d, " 0 free ("), 1);
    free(d);
    char *again = must_alloc(b, 28 * KiB);
    EXPECT_TRUE(again == p[0]);
    tfc_bfc_release(b, again);
    /* Freeing the last chunk merges the whole region into one free chunk again. */
    tfc_bfc_release(b, tail);
    EXPECT_EQ(largest_free(b), (long long)(64 * KiB));
    d = describe(b);
    EXPECT_CONTAINS(d, "region 0 at ");
    EXPECT_CONTAINS(d, ": 65536 bytes, 1 chunks, 0 in use (0 bytes)\n");
    EXPECT_CONTAINS(d, "bin 8 (65536 to 131071 bytes): 0 in use (0 bytes), 1 free (65536 bytes)\n");
    free(d);
  }
  EXPECT_EQ(f.n_allocs, 1);
  finish(b, &f);
}

static void bfc_never_merges_chunks_of_adjacent_regions(void) {
  fake f;
  /* The buffer hands out regions back to back: region 1 starts where region 0 ends. */
  tfc_bfc *b = make(&f, FAKE_BUFFER, 6 * (int64_t)MiB, 1);
  char *a = must_alloc(b, 2 * MiB);
  char *c = must_alloc(b, 4 * MiB);
  EXPECT_EQ(f.n_allocs, 2);
  EXPECT_TRUE(c == a + 2 * MiB);
  tfc_bfc_release(b, a);
  tfc_bfc_release(b, c);
  EXPECT_EQ(largest_free(b), (long long)(4 * MiB));
  char *d = describe(b);
  EXPECT_CONTAINS(d, ": 2097152 bytes, 1 chunks, 0 in use (0 bytes)\n");
  EXPECT_CONTAINS(d, ": 4194304 bytes, 1 chunks, 0 in use (0 bytes)\n");
  free(d);
  char *msg = must_fail(b, 5 * MiB);
  EXPECT_STREQ(msg, "OOM when allocating 5242880 bytes in GPU_0_bfc: 0 in use, 6291456 reserved of 6291456 "
                    "limit, largest free chunk 4194304");
  free(msg);
  finish(b, &f);
}

static void bfc_growth_doubles_regions_up_to_the_limit(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_VIRTUAL, 64 * (int64_t)MiB, 1);
  EXPECT_EQ(f.n_allocs, 0);
  void *a1 = must_alloc(b, 1 * MiB);       /* region 2 MiB */
  void *a2 = must_alloc(b, 3 * MiB / 2);   /* 1 MiB left: region 4 MiB */
  void *a3 = must_alloc(b, 7 * MiB / 2);   /* region 8 MiB */
  void *a4 = must_alloc(b, 20 * MiB);      /* max(request, 16 MiB) */
  EXPECT_EQ(f.n_allocs, 4);
  EXPECT_EQ(f.sizes[0], 2 * MiB);
  EXPECT_EQ(f.sizes[1], 4 * MiB);
  EXPECT_EQ(f.sizes[2], 8 * MiB);
  EXPECT_EQ(f.sizes[3], 20 * MiB);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_reserved, (long long)(34 * MiB));
  /* 30 MiB are left of the limit: 40 MiB cannot be had, and the platform is not asked. */
  char *msg = must_fail(b, 40 * MiB);
  EXPECT_STREQ(msg, "OOM when allocating 41943040 bytes in GPU_0_bfc: 27262976 in use, 35651584 reserved of "
                    "67108864 limit, largest free chunk 4718592");
  free(msg);
  EXPECT_EQ(f.n_allocs, 4);
  /* 25 MiB: doubling asks 40 MiB, the limit caps it at the 30 MiB left. */
  void *a5 = must_alloc(b, 25 * MiB);
  EXPECT_EQ(f.n_allocs, 5);
  EXPECT_EQ(f.sizes[4], 30 * MiB);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_reserved, (long long)(64 * MiB));
  /* 30 MiB < 2 * 25 MiB and the 5 MiB rest is under 128 MiB: the region is handed out whole. */
  EXPECT_EQ(tfc_bfc_size(b, a5), 30 * MiB);
  /* The leftovers (1, 2.5 and 4.5 MiB) still serve requests, whole; then the arena is full. */
  void *a6 = must_alloc(b, 4 * MiB);
  EXPECT_EQ(tfc_bfc_size(b, a6), 9 * MiB / 2);
  void *a7 = must_alloc(b, 2 * MiB);
  EXPECT_EQ(tfc_bfc_size(b, a7), 5 * MiB / 2);
  void *a8 = must_alloc(b, 1 * MiB);
  msg = must_fail(b, 256);
  EXPECT_STREQ(msg, "OOM when allocating 256 bytes in GPU_0_bfc: 67108864 in use, 67108864 reserved of "
                    "67108864 limit, largest free chunk 0");
  free(msg);
  EXPECT_EQ(f.n_allocs, 5);
  void *all[] = {a1, a2, a3, a4, a5, a6, a7, a8};
  for (size_t i = 0; i < TFC_ARRAY_SIZE(all); i++) tfc_bfc_release(b, all[i]);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_in_use, 0);
  finish(b, &f);

  /* A limit below 2 MiB caps even the first region (rounded down to whole 256-byte units). */
  b = make(&f, FAKE_VIRTUAL, (int64_t)MiB + 100, 1);
  void *p = must_alloc(b, 10);
  EXPECT_EQ(f.n_allocs, 1);
  EXPECT_EQ(f.sizes[0], MiB);
  tfc_bfc_release(b, p);
  finish(b, &f);

  /* A first request above 2 MiB gets a region of its own size. */
  b = make(&f, FAKE_VIRTUAL, 64 * (int64_t)MiB, 1);
  p = must_alloc(b, 3 * MiB + 1);
  EXPECT_EQ(f.sizes[0], 3 * MiB + 256);
  tfc_bfc_release(b, p);
  finish(b, &f);
}

static void bfc_without_growth_takes_the_whole_limit_at_the_first_allocation(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_VIRTUAL, 10 * (int64_t)MiB + 100, 0);
  EXPECT_EQ(f.n_allocs, 0);
  tfc_bfc_stats st = tfc_bfc_get_stats(b);
  EXPECT_EQ(st.bytes_reserved, 0);
  EXPECT_EQ(st.bytes_limit, 10 * (int64_t)MiB + 100);
  /* A first request above the limit takes nothing. */
  char *msg = must_fail(b, 11 * MiB);
  EXPECT_STREQ(msg, "OOM when allocating 11534336 bytes in GPU_0_bfc: 0 in use, 0 reserved of 10485860 limit, "
                    "largest free chunk 0");
  free(msg);
  EXPECT_EQ(f.n_allocs, 0);
  void *a = must_alloc(b, 1);
  EXPECT_EQ(f.n_allocs, 1);
  EXPECT_EQ(f.sizes[0], 10 * MiB);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_reserved, (long long)(10 * MiB));
  void *c = must_alloc(b, 4 * MiB);
  msg = must_fail(b, 7 * MiB);
  EXPECT_STREQ(msg, "OOM when allocating 7340032 bytes in GPU_0_bfc: 4194560 in use, 10485760 reserved of "
                    "10485860 limit, largest free chunk 6291200");
  free(msg);
  EXPECT_EQ(f.n_allocs, 1);
  tfc_bfc_release(b, a);
  tfc_bfc_release(b, c);
  finish(b, &f);
}

static void bfc_oom_at_the_limit_has_the_exact_message(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 1 * (int64_t)MiB, 0);
  void *a = must_alloc(b, 400 * KiB);
  char *msg = must_fail(b, 700000);
  EXPECT_STREQ(msg, "OOM when allocating 700000 bytes in GPU_0_bfc: 409600 in use, 1048576 reserved of 1048576 "
                    "limit, largest free chunk 638976");
  free(msg);
  /* A request that cannot even be rounded fails the same way. */
  msg = must_fail(b, SIZE_MAX);
  char want[256];
  snprintf(want, sizeof want,
           "OOM when allocating %zu bytes in GPU_0_bfc: 409600 in use, 1048576 reserved of 1048576 limit, "
           "largest free chunk 638976",
           SIZE_MAX);
  EXPECT_STREQ(msg, want);
  free(msg);
  /* The status keeps the first error, as every tfc_status does. */
  tfc_status s;
  tfc_status_init(&s);
  tfc_status_set(&s, TFC_CANCELLED, "earlier");
  EXPECT_TRUE(tfc_bfc_alloc(b, 2 * MiB, &s) == NULL);
  EXPECT_EQ(s.code, TFC_CANCELLED);
  tfc_status_fini(&s);
  /* What is left still serves requests that fit. */
  void *c = must_alloc(b, 638976);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_in_use, (long long)MiB);
  tfc_bfc_release(b, a);
  tfc_bfc_release(b, c);
  finish(b, &f);
}

static void bfc_region_allocator_failure_is_in_the_oom_message(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 1 * (int64_t)MiB, 0);
  f.fail = 1;
  char *msg = must_fail(b, 100);
  EXPECT_STREQ(msg, "OOM when allocating 100 bytes in GPU_0_bfc: 0 in use, 0 reserved of 1048576 limit, "
                    "largest free chunk 0 (allocating a region of 1048576 bytes failed: RESOURCE_EXHAUSTED: fake "
                    "device has no room for 1048576 bytes)");
  free(msg);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_reserved, 0);
  /* The next allocation tries again. */
  f.fail = 0;
  void *a = must_alloc(b, 100);
  EXPECT_EQ(f.n_allocs, 1);
  tfc_bfc_release(b, a);
  finish(b, &f);

  /* With growth, a failing later region leaves the arena as it was; other codes are named. */
  b = make(&f, FAKE_HEAP, 64 * (int64_t)MiB, 1);
  a = must_alloc(b, 1 * MiB);
  f.fail = 1;
  f.fail_code = TFC_INTERNAL;
  msg = must_fail(b, 3 * MiB);
  EXPECT_STREQ(msg, "OOM when allocating 3145728 bytes in GPU_0_bfc: 1048576 in use, 2097152 reserved of 67108864 "
                    "limit, largest free chunk 1048576 (allocating a region of 4194304 bytes failed: INTERNAL: fake "
                    "device has no room for 4194304 bytes)");
  free(msg);
  /* Requests that fit in the existing region do not need the platform. */
  void *c = must_alloc(b, 1 * MiB);
  f.fail = 0;
  void *d = must_alloc(b, 3 * MiB);
  EXPECT_EQ(f.n_allocs, 2);
  EXPECT_EQ(f.sizes[1], 4 * MiB);
  tfc_bfc_release(b, a);
  tfc_bfc_release(b, c);
  tfc_bfc_release(b, d);
  finish(b, &f);
}

static void bfc_stats_track_use_peak_largest_count_and_reserved(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 8 * (int64_t)MiB, 1);
  tfc_bfc_stats st = tfc_bfc_get_stats(b);
  EXPECT_EQ(st.bytes_in_use, 0);
  EXPECT_EQ(st.peak_bytes_in_use, 0);
  EXPECT_EQ(st.largest_alloc_size, 0);
  EXPECT_EQ(st.n_allocs, 0);
  EXPECT_EQ(st.bytes_reserved, 0);
  EXPECT_EQ(st.bytes_limit, 8 * (int64_t)MiB);
  void *a = must_alloc(b, 1000);    /* 1024 */
  void *c = must_alloc(b, 100000);  /* 100096 */
  void *d = must_alloc(b, 0);       /* 256 */
  st = tfc_bfc_get_stats(b);
  EXPECT_EQ(st.bytes_in_use, 1024 + 100096 + 256);
  EXPECT_EQ(st.peak_bytes_in_use, 1024 + 100096 + 256);
  EXPECT_EQ(st.largest_alloc_size, 100096);
  EXPECT_EQ(st.n_allocs, 3);
  EXPECT_EQ(st.bytes_reserved, (long long)(2 * MiB));
  tfc_bfc_release(b, c);
  void *e = must_alloc(b, 512);
  st = tfc_bfc_get_stats(b);
  EXPECT_EQ(st.bytes_in_use, 1024 + 256 + 512);
  EXPECT_EQ(st.peak_bytes_in_use, 1024 + 100096 + 256);
  EXPECT_EQ(st.largest_alloc_size, 100096);
  EXPECT_EQ(st.n_allocs, 4);
  /* Failed allocations count nothing. */
  char *msg = must_fail(b, 9 * MiB);
  free(msg);
  EXPECT_EQ(tfc_bfc_get_stats(b).n_allocs, 4);
  tfc_bfc_release(b, a);
  tfc_bfc_release(b, d);
  tfc_bfc_release(b, e);
  st = tfc_bfc_get_stats(b);
  EXPECT_EQ(st.bytes_in_use, 0);
  EXPECT_EQ(st.bytes_reserved, (long long)(2 * MiB));
  finish(b, &f);
  /* NULL arena: zero stats. */
  st = tfc_bfc_get_stats(NULL);
  EXPECT_EQ(st.n_allocs, 0);
}

static void bfc_free_reports_live_allocations(void) {
  EXPECT_EQ(tfc_bfc_free(NULL), 0);
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 1 * (int64_t)MiB, 0);
  void *a = must_alloc(b, 10);
  must_alloc(b, 20);
  must_alloc(b, 30);
  tfc_bfc_release(b, a);
  /* Releasing NULL, a pointer twice, or one the arena never gave out changes nothing. */
  tfc_bfc_release(b, NULL);
  tfc_bfc_release(b, a);
  tfc_bfc_release(b, (char *)a + 128);
  int local;
  tfc_bfc_release(b, &local);
  EXPECT_EQ(tfc_bfc_get_stats(b).bytes_in_use, 512);
  EXPECT_EQ(tfc_bfc_free(b), 2);
  EXPECT_EQ(f.n_frees, 1);
}

static void bfc_new_rejects_a_missing_region_allocator(void) {
  tfc_bfc_region_fns none = {NULL, NULL, NULL};
  EXPECT_TRUE(tfc_bfc_new("GPU_0_bfc", 1 << 20, 0, NULL) == NULL);
  EXPECT_TRUE(tfc_bfc_new("GPU_0_bfc", 1 << 20, 0, &none) == NULL);
  /* A zero or negative limit gives an arena that has nothing to hand out. */
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, -5, 1);
  char *msg = must_fail(b, 1);
  EXPECT_STREQ(msg, "OOM when allocating 1 bytes in GPU_0_bfc: 0 in use, 0 reserved of 0 limit, largest free chunk 0");
  free(msg);
  EXPECT_EQ(f.n_allocs, 0);
  finish(b, &f);
}

static void bfc_describe_lists_regions_bins_and_the_largest_free_chunk(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 8 * (int64_t)MiB, 1);
  char *d = describe(b);
  EXPECT_STREQ(d, "GPU_0_bfc: 0 regions, 0 reserved of 8388608 limit, 0 in use in 0 chunks\nlargest free chunk 0\n");
  free(d);
  void *a = must_alloc(b, 300);     /* 512, bin 1 */
  void *c = must_alloc(b, 3000);    /* 3072, bin 3 */
  void *e = must_alloc(b, 2 * MiB); /* region 1 of 4 MiB, split in halves */
  d = describe(b);
  /* The region addresses vary: replace each by ADDR before comparing. */
  tfc_strbuf sb;
  tfc_strbuf_init(&sb);
  for (const char *at = d, *next; *at; at = next) {
    const char *addr = strstr(at, " at 0x");
    if (!addr) {
      tfc_strbuf_puts(&sb, at);
      break;
    }
    tfc_strbuf_append(&sb, at, (size_t)(addr - at));
    tfc_strbuf_puts(&sb, " at ADDR");
    next = strchr(addr, ':');
  }
  free(d);
  d = tfc_strbuf_take(&sb);
  EXPECT_STREQ(d, "GPU_0_bfc: 2 regions, 6291456 reserved of 8388608 limit, 2100736 in use in 3 chunks\n"
                  "region 0 at ADDR: 2097152 bytes, 3 chunks, 2 in use (3584 bytes)\n"
                  "region 1 at ADDR: 4194304 bytes, 2 chunks, 1 in use (2097152 bytes)\n"
                  "bin 1 (512 to 1023 bytes): 1 in use (512 bytes), 0 free (0 bytes)\n"
                  "bin 3 (2048 to 4095 bytes): 1 in use (3072 bytes), 0 free (0 bytes)\n"
                  "bin 12 (1048576 to 2097151 bytes): 0 in use (0 bytes), 1 free (2093568 bytes)\n"
                  "bin 13 (2097152 to 4194303 bytes): 1 in use (2097152 bytes), 1 free (2097152 bytes)\n"
                  "largest free chunk 2097152\n");
  free(d);
  tfc_bfc_release(b, a);
  tfc_bfc_release(b, c);
  tfc_bfc_release(b, e);
  finish(b, &f);
}

/* Random allocations and releases over regions carved from one buffer, checked against a shadow
 * map that records the owner of every 256-byte unit: no two live allocations may overlap, and
 * every allocation lies inside the buffer. */
static void bfc_random_alloc_free_matches_a_shadow_model(void) {
  enum { N_OPS = 100000, MAX_LIVE = 2000 };
  const size_t limit = 32 * MiB;
  fake f;
  tfc_bfc *b = make(&f, FAKE_BUFFER, (int64_t)limit, 1);
  uint32_t *owner = calloc(limit / 256, sizeof *owner);
  char **live = calloc(MAX_LIVE, sizeof *live);
  size_t *live_size = calloc(MAX_LIVE, sizeof *live_size);
  uint32_t *live_id = calloc(MAX_LIVE, sizeof *live_id);
  EXPECT_TRUE(owner && live && live_size && live_id);
  int n_live = 0, n_oom = 0;
  uint64_t rng = 12345;
  uint32_t next_id = 1;
  for (int op = 0; op < N_OPS; op++) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(rng >> 33);
    if (n_live < MAX_LIVE && (n_live == 0 || r % 100 < 55)) {
      size_t n = r % 32 == 0 ? (size_t)(r >> 8) % (128 * KiB) : (size_t)(r >> 8) % (4 * KiB);
      tfc_status s;
      tfc_status_init(&s);
      char *p = tfc_bfc_alloc(b, n, &s);
      if (!p) {
        EXPECT_EQ(s.code, TFC_RESOURCE_EXHAUSTED);
        EXPECT_CONTAINS(tfc_status_msg(&s), "OOM when allocating");
        tfc_status_fini(&s);
        n_oom++;
        continue;
      }
      tfc_status_fini(&s);
      size_t size = tfc_bfc_size(b, p);
      EXPECT_TRUE(size >= n && size % 256 == 0 && size >= 256);
      EXPECT_TRUE(p >= f.buffer && p + size <= f.buffer + f.buffer_used);
      size_t first = (size_t)(p - f.buffer) / 256;
      for (size_t u = first; u < first + size / 256; u++) {
        if (owner[u]) tfc_test_fail(__FILE__, __LINE__, "allocation %u overlaps live allocation %u", next_id, owner[u]);
        owner[u] = next_id;
      }
      p[0] = (char)next_id;
      p[size - 1] = (char)next_id;
      live[n_live] = p;
      live_size[n_live] = size;
      live_id[n_live++] = next_id++;
    } else {
      int i = (int)(r % (uint32_t)n_live);
      char *p = live[i];
      size_t first = (size_t)(p - f.buffer) / 256;
      EXPECT_EQ(p[0], (char)live_id[i]);
      EXPECT_EQ(p[live_size[i] - 1], (char)live_id[i]);
      for (size_t u = first; u < first + live_size[i] / 256; u++) {
        EXPECT_EQ(owner[u], live_id[i]);
        owner[u] = 0;
      }
      tfc_bfc_release(b, p);
      live[i] = live[n_live - 1];
      live_size[i] = live_size[n_live - 1];
      live_id[i] = live_id[--n_live];
    }
  }
  tfc_bfc_stats st = tfc_bfc_get_stats(b);
  EXPECT_EQ(st.n_allocs, (long long)(next_id - 1));
  EXPECT_TRUE(st.bytes_reserved <= (int64_t)limit);
  while (n_live > 0) tfc_bfc_release(b, live[--n_live]);
  st = tfc_bfc_get_stats(b);
  EXPECT_EQ(st.bytes_in_use, 0);
  /* Every region is one free chunk again. */
  char *d = describe(b);
  EXPECT_EQ(count_substr(d, " chunks, 0 in use (0 bytes)\n"), f.n_allocs);
  EXPECT_EQ(count_substr(d, "\nregion "), f.n_allocs);
  EXPECT_EQ(count_substr(d, " 1 chunks, "), f.n_allocs);
  free(d);
  size_t biggest = 0;
  for (int i = 0; i < f.n_allocs; i++)
    if (f.sizes[i] > biggest) biggest = f.sizes[i];
  EXPECT_EQ(largest_free(b), (long long)biggest);
  EXPECT_TRUE(n_oom < N_OPS / 10);
  free(owner);
  free(live);
  free(live_size);
  free(live_id);
  finish(b, &f);
}

typedef struct worker_arg {
  tfc_bfc *b;
  int seed;
  int failures;
} worker_arg;

/* Each thread fills its allocations with its own byte and checks it before releasing: another
 * thread's allocation overlapping one of ours would overwrite it. */
static void *worker(void *arg) {
  enum { N_OPS = 10000, MAX_LIVE = 64 };
  worker_arg *w = arg;
  char *live[MAX_LIVE];
  size_t live_n[MAX_LIVE];
  int n_live = 0;
  uint64_t rng = (uint64_t)w->seed * 7919 + 1;
  unsigned char tag = (unsigned char)(0x10 + w->seed);
  for (int op = 0; op < N_OPS; op++) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(rng >> 33);
    if (n_live < MAX_LIVE && (n_live == 0 || r % 2)) {
      size_t n = 1 + (r >> 4) % (16 * KiB);
      tfc_status s;
      tfc_status_init(&s);
      char *p = tfc_bfc_alloc(w->b, n, &s);
      tfc_status_fini(&s);
      if (!p) {
        w->failures++;
        continue;
      }
      memset(p, tag, n);
      live[n_live] = p;
      live_n[n_live++] = n;
    } else {
      int i = (int)(r % (uint32_t)n_live);
      for (size_t k = 0; k < live_n[i]; k++)
        if ((unsigned char)live[i][k] != tag) {
          w->failures++;
          break;
        }
      if (tfc_bfc_size(w->b, live[i]) < live_n[i]) w->failures++;
      tfc_bfc_release(w->b, live[i]);
      live[i] = live[n_live - 1];
      live_n[i] = live_n[--n_live];
    }
  }
  while (n_live > 0) tfc_bfc_release(w->b, live[--n_live]);
  return NULL;
}

static void bfc_threads_share_one_arena(void) {
  fake f;
  tfc_bfc *b = make(&f, FAKE_HEAP, 64 * (int64_t)MiB, 1);
  pthread_t th[4];
  worker_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (worker_arg){b, i, 0};
    EXPECT_EQ(pthread_create(&th[i], NULL, worker, &args[i]), 0);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++) EXPECT_EQ(args[i].failures, 0);
  tfc_bfc_stats st = tfc_bfc_get_stats(b);
  EXPECT_EQ(st.bytes_in_use, 0);
  EXPECT_TRUE(st.n_allocs > 4 * 1000);
  EXPECT_TRUE(st.peak_bytes_in_use <= st.bytes_reserved);
  finish(b, &f);
}

static const tfc_test tests[] = {
    TFC_TEST(bfc_rounds_requests_to_256_bytes_and_aligns_them),
    TFC_TEST(bfc_best_fit_takes_the_smallest_chunk_that_fits),
    TFC_TEST(bfc_splits_only_when_tf_would),
    TFC_TEST(bfc_freed_neighbours_merge_back_in_every_order),
    TFC_TEST(bfc_never_merges_chunks_of_adjacent_regions),
    TFC_TEST(bfc_growth_doubles_regions_up_to_the_limit),
    TFC_TEST(bfc_without_growth_takes_the_whole_limit_at_the_first_allocation),
    TFC_TEST(bfc_oom_at_the_limit_has_the_exact_message),
    TFC_TEST(bfc_region_allocator_failure_is_in_the_oom_message),
    TFC_TEST(bfc_stats_track_use_peak_largest_count_and_reserved),
    TFC_TEST(bfc_free_reports_live_allocations),
    TFC_TEST(bfc_new_rejects_a_missing_region_allocator),
    TFC_TEST(bfc_describe_lists_regions_bins_and_the_largest_free_chunk),
    TFC_TEST(bfc_random_alloc_free_matches_a_shadow_model),
    TFC_TEST(bfc_threads_share_one_arena),
    {0},
};

TFC_TEST_MAIN(tests)
