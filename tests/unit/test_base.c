/* Unit tests of the base modules: status, strbuf, hashmap, threadpool. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/hashmap.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "base/threadpool.h"
#include "harness.h"

/* ---- status ---- */

static void status_init_is_ok_with_empty_message(void) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_TRUE(tfc_status_ok(&s));
  EXPECT_EQ(s.code, TFC_OK);
  EXPECT_STREQ(tfc_status_msg(&s), "");
  tfc_status_fini(&s);
}

static void status_set_records_code_and_formatted_message(void) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_status_set(&s, TFC_INVALID_ARGUMENT, "bad %s %d", "thing", 7), TFC_INVALID_ARGUMENT);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_TRUE(!tfc_status_ok(&s));
  EXPECT_STREQ(tfc_status_msg(&s), "bad thing 7");
  tfc_status_fini(&s);
  EXPECT_EQ(s.code, TFC_OK);
}

static void status_first_error_wins(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_status_set(&s, TFC_NOT_FOUND, "first");
  EXPECT_EQ(tfc_status_set(&s, TFC_INTERNAL, "second"), TFC_NOT_FOUND);
  EXPECT_EQ(s.code, TFC_NOT_FOUND);
  EXPECT_STREQ(tfc_status_msg(&s), "first");
  tfc_status_fini(&s);
}

static void status_set_ok_on_ok_status_stays_ok(void) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_status_set(&s, TFC_OK, "ignored"), TFC_OK);
  EXPECT_TRUE(tfc_status_ok(&s));
  EXPECT_STREQ(tfc_status_msg(&s), "");
  tfc_status_fini(&s);
}

static void status_clear_resets_so_a_new_error_can_be_set(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_status_set(&s, TFC_ABORTED, "x");
  tfc_status_clear(&s);
  EXPECT_TRUE(tfc_status_ok(&s));
  EXPECT_STREQ(tfc_status_msg(&s), "");
  tfc_status_set(&s, TFC_CANCELLED, "y");
  EXPECT_EQ(s.code, TFC_CANCELLED);
  EXPECT_STREQ(tfc_status_msg(&s), "y");
  tfc_status_fini(&s);
}

static void status_assign_overwrites_held_error(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_status_set(&s, TFC_NOT_FOUND, "old");
  tfc_status_assign(&s, TFC_OUT_OF_RANGE, "new");
  EXPECT_EQ(s.code, TFC_OUT_OF_RANGE);
  EXPECT_STREQ(tfc_status_msg(&s), "new");
  tfc_status_assign(&s, TFC_OK, "whatever");
  EXPECT_TRUE(tfc_status_ok(&s));
  EXPECT_STREQ(tfc_status_msg(&s), "");
  tfc_status_fini(&s);
}

static void status_prefix_puts_context_in_front(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_status_set(&s, TFC_INVALID_ARGUMENT, "shape mismatch");
  EXPECT_EQ(tfc_status_prefix(&s, "node '%s' (%s): ", "x", "MatMul"), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "node 'x' (MatMul): shape mismatch");
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  tfc_status_fini(&s);
}

static void status_prefix_on_ok_is_noop(void) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_status_prefix(&s, "ctx: "), TFC_OK);
  EXPECT_TRUE(tfc_status_ok(&s));
  EXPECT_STREQ(tfc_status_msg(&s), "");
  tfc_status_fini(&s);
}

static void status_move_transfers_error_and_clears_source(void) {
  tfc_status dst, src;
  tfc_status_init(&dst);
  tfc_status_init(&src);
  tfc_status_set(&src, TFC_UNAVAILABLE, "gone");
  EXPECT_EQ(tfc_status_move(&dst, &src), TFC_UNAVAILABLE);
  EXPECT_EQ(dst.code, TFC_UNAVAILABLE);
  EXPECT_STREQ(tfc_status_msg(&dst), "gone");
  EXPECT_TRUE(tfc_status_ok(&src));
  EXPECT_STREQ(tfc_status_msg(&src), "");
  tfc_status_fini(&dst);
  tfc_status_fini(&src);
}

static void status_move_keeps_destination_first_error(void) {
  tfc_status dst, src;
  tfc_status_init(&dst);
  tfc_status_init(&src);
  tfc_status_set(&dst, TFC_NOT_FOUND, "first");
  tfc_status_set(&src, TFC_INTERNAL, "second");
  EXPECT_EQ(tfc_status_move(&dst, &src), TFC_NOT_FOUND);
  EXPECT_STREQ(tfc_status_msg(&dst), "first");
  EXPECT_TRUE(tfc_status_ok(&src));
  tfc_status_fini(&dst);
  tfc_status_fini(&src);
}

static void status_move_of_ok_source_leaves_destination(void) {
  tfc_status dst, src;
  tfc_status_init(&dst);
  tfc_status_init(&src);
  EXPECT_EQ(tfc_status_move(&dst, &src), TFC_OK);
  EXPECT_TRUE(tfc_status_ok(&dst));
  tfc_status_fini(&dst);
  tfc_status_fini(&src);
}

static void status_code_names_match_tf(void) {
  EXPECT_STREQ(tfc_code_name(TFC_OK), "OK");
  EXPECT_STREQ(tfc_code_name(TFC_CANCELLED), "CANCELLED");
  EXPECT_STREQ(tfc_code_name(TFC_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_STREQ(tfc_code_name(TFC_NOT_FOUND), "NOT_FOUND");
  EXPECT_STREQ(tfc_code_name(TFC_RESOURCE_EXHAUSTED), "RESOURCE_EXHAUSTED");
  EXPECT_STREQ(tfc_code_name(TFC_FAILED_PRECONDITION), "FAILED_PRECONDITION");
  EXPECT_STREQ(tfc_code_name(TFC_UNIMPLEMENTED), "UNIMPLEMENTED");
  EXPECT_STREQ(tfc_code_name(TFC_INTERNAL), "INTERNAL");
  EXPECT_STREQ(tfc_code_name(TFC_UNAUTHENTICATED), "UNAUTHENTICATED");
  EXPECT_EQ(TFC_UNAUTHENTICATED, 16);
}

static void status_code_name_of_out_of_range_code_is_not_null(void) {
  const char *a = tfc_code_name(TFC_CODE_COUNT), *b = tfc_code_name(-1);
  EXPECT_TRUE(a != NULL && b != NULL);
  EXPECT_TRUE(strcmp(a, "OK") != 0);
  EXPECT_TRUE(strcmp(b, "OK") != 0);
}

static int try_helper(int code, int *reached) {
  TFC_TRY(code);
  *reached = 1;
  return TFC_OK;
}

static void status_try_returns_early_on_error(void) {
  int reached = 0;
  EXPECT_EQ(try_helper(TFC_ABORTED, &reached), TFC_ABORTED);
  EXPECT_EQ(reached, 0);
  EXPECT_EQ(try_helper(TFC_OK, &reached), TFC_OK);
  EXPECT_EQ(reached, 1);
}

/* ---- strbuf ---- */

static void strbuf_empty_str_is_empty_string(void) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  EXPECT_STREQ(tfc_strbuf_str(&b), "");
  EXPECT_EQ(b.len, 0);
  EXPECT_TRUE(tfc_strbuf_ok(&b));
  tfc_strbuf_fini(&b);
}

static void strbuf_appends_puts_and_printf(void) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_strbuf_puts(&b, "ab");
  tfc_strbuf_append(&b, "cdef", 2);
  tfc_strbuf_printf(&b, "-%d-%s", 42, "x");
  EXPECT_STREQ(tfc_strbuf_str(&b), "abcd-42-x");
  EXPECT_EQ(b.len, 9);
  EXPECT_TRUE(tfc_strbuf_ok(&b));
  tfc_strbuf_fini(&b);
}

static void strbuf_grows_for_long_content(void) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  for (int i = 0; i < 5000; i++) tfc_strbuf_printf(&b, "%d,", i % 10);
  EXPECT_EQ(b.len, 10000);
  EXPECT_EQ(strlen(tfc_strbuf_str(&b)), 10000);
  const char *s = tfc_strbuf_str(&b);
  EXPECT_EQ(s[0], '0');
  EXPECT_EQ(s[9998], '9');
  EXPECT_EQ(s[9999], ',');
  tfc_strbuf_fini(&b);
}

static void strbuf_append_keeps_embedded_nul_bytes(void) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_strbuf_append(&b, "a\0b", 3);
  EXPECT_EQ(b.len, 3);
  EXPECT_EQ(memcmp(b.data, "a\0b", 3), 0);
  EXPECT_EQ(b.data[3], '\0');
  tfc_strbuf_fini(&b);
}

static void strbuf_take_hands_string_and_resets(void) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_strbuf_printf(&b, "hello %s", "world");
  char *s = tfc_strbuf_take(&b);
  EXPECT_STREQ(s, "hello world");
  free(s);
  EXPECT_EQ(b.len, 0);
  EXPECT_STREQ(tfc_strbuf_str(&b), "");
  tfc_strbuf_puts(&b, "again");
  EXPECT_STREQ(tfc_strbuf_str(&b), "again");
  tfc_strbuf_fini(&b);
}

/* ---- hashmap ---- */

static void hashmap_get_on_empty_map_is_null(void) {
  tfc_hashmap m;
  tfc_hashmap_init(&m);
  EXPECT_TRUE(tfc_hashmap_get(&m, "x") == NULL);
  EXPECT_EQ(m.count, 0);
  tfc_hashmap_fini(&m);
}

static void hashmap_put_then_get(void) {
  tfc_hashmap m;
  tfc_hashmap_init(&m);
  int a = 1, b = 2;
  EXPECT_EQ(tfc_hashmap_put(&m, "alpha", &a), 0);
  EXPECT_EQ(tfc_hashmap_put(&m, "beta", &b), 0);
  EXPECT_TRUE(tfc_hashmap_get(&m, "alpha") == &a);
  EXPECT_TRUE(tfc_hashmap_get(&m, "beta") == &b);
  EXPECT_TRUE(tfc_hashmap_get(&m, "gamma") == NULL);
  EXPECT_TRUE(tfc_hashmap_get(&m, "alph") == NULL);
  EXPECT_EQ(m.count, 2);
  tfc_hashmap_fini(&m);
}

static void hashmap_put_replaces_existing_value(void) {
  tfc_hashmap m;
  tfc_hashmap_init(&m);
  int a = 1, b = 2;
  tfc_hashmap_put(&m, "k", &a);
  EXPECT_EQ(tfc_hashmap_put(&m, "k", &b), 0);
  EXPECT_TRUE(tfc_hashmap_get(&m, "k") == &b);
  EXPECT_EQ(m.count, 1);
  tfc_hashmap_fini(&m);
}

static void hashmap_copies_keys(void) {
  tfc_hashmap m;
  tfc_hashmap_init(&m);
  int a = 1;
  char key[8];
  strcpy(key, "abc");
  tfc_hashmap_put(&m, key, &a);
  strcpy(key, "zzz");
  EXPECT_TRUE(tfc_hashmap_get(&m, "abc") == &a);
  EXPECT_TRUE(tfc_hashmap_get(&m, "zzz") == NULL);
  tfc_hashmap_fini(&m);
}

static void hashmap_grows_past_1000_keys(void) {
  tfc_hashmap m;
  tfc_hashmap_init(&m);
  enum { N = 3000 };
  static int vals[N];
  char key[32];
  for (int i = 0; i < N; i++) {
    vals[i] = i;
    snprintf(key, sizeof key, "node_%d", i);
    EXPECT_EQ(tfc_hashmap_put(&m, key, &vals[i]), 0);
  }
  EXPECT_EQ(m.count, N);
  EXPECT_TRUE(m.cap >= N);
  EXPECT_EQ(m.cap & (m.cap - 1), 0);
  for (int i = 0; i < N; i++) {
    snprintf(key, sizeof key, "node_%d", i);
    int *v = tfc_hashmap_get(&m, key);
    if (!v || *v != i) tfc_test_fail(__FILE__, __LINE__, "key %s lost after growth", key);
  }
  EXPECT_TRUE(tfc_hashmap_get(&m, "node_3000") == NULL);
  size_t seen = 0;
  for (size_t i = 0; i < m.cap; i++)
    if (m.slots[i].key) seen++;
  EXPECT_EQ(seen, N);
  tfc_hashmap_fini(&m);
}

static void hashmap_binary_keys_with_nul_bytes_are_distinct(void) {
  tfc_hashmap m;
  tfc_hashmap_init(&m);
  int a = 1, b = 2, c = 3;
  EXPECT_EQ(tfc_hashmap_put_n(&m, "a\0b", 3, &a), 0);
  EXPECT_EQ(tfc_hashmap_put_n(&m, "a\0c", 3, &b), 0);
  EXPECT_EQ(tfc_hashmap_put_n(&m, "a", 1, &c), 0);
  EXPECT_EQ(m.count, 3);
  EXPECT_TRUE(tfc_hashmap_get_n(&m, "a\0b", 3) == &a);
  EXPECT_TRUE(tfc_hashmap_get_n(&m, "a\0c", 3) == &b);
  EXPECT_TRUE(tfc_hashmap_get_n(&m, "a", 1) == &c);
  EXPECT_TRUE(tfc_hashmap_get(&m, "a") == &c);
  EXPECT_TRUE(tfc_hashmap_get_n(&m, "a\0d", 3) == NULL);
  EXPECT_TRUE(tfc_hashmap_get_n(&m, "a\0", 2) == NULL);
  tfc_hashmap_fini(&m);
}

static void hashmap_empty_key_is_a_valid_key(void) {
  tfc_hashmap m;
  tfc_hashmap_init(&m);
  int a = 1;
  EXPECT_EQ(tfc_hashmap_put(&m, "", &a), 0);
  EXPECT_TRUE(tfc_hashmap_get(&m, "") == &a);
  EXPECT_EQ(m.count, 1);
  tfc_hashmap_fini(&m);
}

static void hash_bytes_is_deterministic_and_length_sensitive(void) {
  EXPECT_TRUE(tfc_hash_bytes("abc", 3) == tfc_hash_bytes("abc", 3));
  EXPECT_TRUE(tfc_hash_bytes("abc", 3) != tfc_hash_bytes("abd", 3));
  EXPECT_TRUE(tfc_hash_bytes("abc", 3) != tfc_hash_bytes("abc", 2));
}

/* ---- threadpool ---- */

typedef struct counter_task {
  atomic_int count;
  pthread_mutex_t mu;
  pthread_cond_t cv;
} counter_task;

static void bump(void *arg) {
  counter_task *c = arg;
  pthread_mutex_lock(&c->mu);
  atomic_fetch_add(&c->count, 1);
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

static void threadpool_size_is_requested_thread_count(void) {
  tfc_threadpool *p = tfc_threadpool_new(3, "t");
  EXPECT_TRUE(p != NULL);
  EXPECT_EQ(tfc_threadpool_size(p), 3);
  tfc_threadpool_free(p);
  p = tfc_threadpool_new(0, "t");
  EXPECT_TRUE(p != NULL);
  EXPECT_EQ(tfc_threadpool_size(p), tfc_num_cores());
  tfc_threadpool_free(p);
  EXPECT_TRUE(tfc_num_cores() >= 1);
}

static void threadpool_schedule_runs_every_task(void) {
  tfc_threadpool *p = tfc_threadpool_new(4, "t");
  counter_task c;
  atomic_init(&c.count, 0);
  pthread_mutex_init(&c.mu, NULL);
  pthread_cond_init(&c.cv, NULL);
  for (int i = 0; i < 500; i++) EXPECT_EQ(tfc_threadpool_schedule(p, bump, &c), 0);
  pthread_mutex_lock(&c.mu);
  while (atomic_load(&c.count) < 500) pthread_cond_wait(&c.cv, &c.mu);
  pthread_mutex_unlock(&c.mu);
  EXPECT_EQ(atomic_load(&c.count), 500);
  tfc_threadpool_free(p);
  pthread_mutex_destroy(&c.mu);
  pthread_cond_destroy(&c.cv);
}

/* Waking sleeping workers without work sends them back to spin and sleep: tasks queued between
 * and after wake-ups all run, a pool woken many times still frees, and NULL is a no-op. */
static void threadpool_wake_keeps_every_task_and_frees(void) {
  tfc_threadpool_wake(NULL);
  tfc_threadpool *p = tfc_threadpool_new(2, "t");
  counter_task c;
  atomic_init(&c.count, 0);
  pthread_mutex_init(&c.mu, NULL);
  pthread_cond_init(&c.cv, NULL);
  usleep(5000); /* longer than the spin: both workers asleep */
  for (int i = 0; i < 200; i++) {
    tfc_threadpool_wake(p);
    if (i % 2) EXPECT_EQ(tfc_threadpool_schedule(p, bump, &c), 0);
    if (i % 50 == 0) usleep(2000);
  }
  pthread_mutex_lock(&c.mu);
  while (atomic_load(&c.count) < 100) pthread_cond_wait(&c.cv, &c.mu);
  pthread_mutex_unlock(&c.mu);
  usleep(2000);
  tfc_threadpool_wake(p);
  tfc_threadpool_free(p);
  EXPECT_EQ(atomic_load(&c.count), 100);
  pthread_mutex_destroy(&c.mu);
  pthread_cond_destroy(&c.cv);
}

static void threadpool_free_runs_queued_tasks(void) {
  tfc_threadpool *p = tfc_threadpool_new(1, "t");
  counter_task c;
  atomic_init(&c.count, 0);
  pthread_mutex_init(&c.mu, NULL);
  pthread_cond_init(&c.cv, NULL);
  for (int i = 0; i < 100; i++) tfc_threadpool_schedule(p, bump, &c);
  tfc_threadpool_free(p);
  EXPECT_EQ(atomic_load(&c.count), 100);
  pthread_mutex_destroy(&c.mu);
  pthread_cond_destroy(&c.cv);
}

typedef struct cover_arg {
  int64_t n;
  atomic_int *hits;
  atomic_int shards;
  atomic_int bad_range;
} cover_arg;

static void mark_range(int64_t begin, int64_t end, void *arg) {
  cover_arg *c = arg;
  atomic_fetch_add(&c->shards, 1);
  if (begin < 0 || end > c->n || begin >= end) {
    atomic_fetch_add(&c->bad_range, 1);
    return;
  }
  for (int64_t i = begin; i < end; i++) atomic_fetch_add(&c->hits[i], 1);
}

static void check_cover(tfc_threadpool *p, int64_t n, int64_t min_shard, int max_parallel,
                        int *shards_out) {
  cover_arg c;
  c.n = n;
  c.hits = calloc((size_t)(n ? n : 1), sizeof *c.hits);
  atomic_init(&c.shards, 0);
  atomic_init(&c.bad_range, 0);
  tfc_threadpool_parallel_for(p, n, min_shard, max_parallel, mark_range, &c);
  EXPECT_EQ(atomic_load(&c.bad_range), 0);
  for (int64_t i = 0; i < n; i++)
    if (atomic_load(&c.hits[i]) != 1)
      tfc_test_fail(__FILE__, __LINE__, "index %lld covered %d times (n=%lld)", (long long)i,
                    atomic_load(&c.hits[i]), (long long)n);
  if (shards_out) *shards_out = atomic_load(&c.shards);
  free(c.hits);
}

static void threadpool_parallel_for_covers_range_exactly_once(void) {
  tfc_threadpool *p = tfc_threadpool_new(4, "t");
  int shards = 0;
  check_cover(p, 100000, 1, 64, &shards);
  EXPECT_TRUE(shards >= 2);
  EXPECT_TRUE(shards <= 64);
  check_cover(p, 1000, 1, 0, &shards);
  EXPECT_TRUE(shards <= tfc_threadpool_size(p) + 1);
  check_cover(p, 7, 1, 100, NULL);
  check_cover(p, 1, 1, 8, NULL);
  check_cover(p, 12345, 100, 1000, &shards);
  EXPECT_TRUE(shards <= 124);
  tfc_threadpool_free(p);
}

static void threadpool_parallel_for_zero_items_calls_nothing(void) {
  tfc_threadpool *p = tfc_threadpool_new(2, "t");
  int shards = -1;
  check_cover(p, 0, 1, 4, &shards);
  EXPECT_EQ(shards, 0);
  tfc_threadpool_free(p);
}

static void threadpool_parallel_for_null_pool_runs_inline(void) {
  int shards = 0;
  check_cover(NULL, 5000, 1, 16, &shards);
  EXPECT_TRUE(shards >= 1);
}

typedef struct nested_arg {
  tfc_threadpool *p;
  atomic_int done;
  atomic_int bad;
  pthread_mutex_t mu;
  pthread_cond_t cv;
} nested_arg;

static void inner_sum(int64_t begin, int64_t end, void *arg) {
  atomic_llong *sum = arg;
  for (int64_t i = begin; i < end; i++) atomic_fetch_add(sum, i);
}

static void nested_task(void *arg) {
  nested_arg *a = arg;
  atomic_llong sum;
  atomic_init(&sum, 0);
  tfc_threadpool_parallel_for(a->p, 10000, 1, 0, inner_sum, &sum);
  if (atomic_load(&sum) != 10000LL * 9999 / 2) atomic_fetch_add(&a->bad, 1);
  pthread_mutex_lock(&a->mu);
  atomic_fetch_add(&a->done, 1);
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

static void threadpool_nested_parallel_for_in_pool_tasks_does_not_deadlock(void) {
  /* More tasks than threads, every one of them blocking in parallel_for on pool threads. */
  tfc_threadpool *p = tfc_threadpool_new(2, "t");
  nested_arg a;
  a.p = p;
  atomic_init(&a.done, 0);
  atomic_init(&a.bad, 0);
  pthread_mutex_init(&a.mu, NULL);
  pthread_cond_init(&a.cv, NULL);
  enum { TASKS = 16 };
  for (int i = 0; i < TASKS; i++) EXPECT_EQ(tfc_threadpool_schedule(p, nested_task, &a), 0);
  pthread_mutex_lock(&a.mu);
  while (atomic_load(&a.done) < TASKS) pthread_cond_wait(&a.cv, &a.mu);
  pthread_mutex_unlock(&a.mu);
  EXPECT_EQ(atomic_load(&a.bad), 0);
  tfc_threadpool_free(p);
  pthread_mutex_destroy(&a.mu);
  pthread_cond_destroy(&a.cv);
}

typedef struct shard_in_shard {
  tfc_threadpool *p;
  atomic_llong total;
} shard_in_shard;

static void outer_shard(int64_t begin, int64_t end, void *arg) {
  shard_in_shard *o = arg;
  for (int64_t i = begin; i < end; i++) {
    atomic_llong sum;
    atomic_init(&sum, 0);
    tfc_threadpool_parallel_for(o->p, 1000, 1, 0, inner_sum, &sum);
    atomic_fetch_add(&o->total, atomic_load(&sum));
  }
}

static void threadpool_parallel_for_nested_in_parallel_for(void) {
  tfc_threadpool *p = tfc_threadpool_new(3, "t");
  shard_in_shard o;
  o.p = p;
  atomic_init(&o.total, 0);
  tfc_threadpool_parallel_for(p, 40, 1, 0, outer_shard, &o);
  EXPECT_EQ(atomic_load(&o.total), 40LL * (1000LL * 999 / 2));
  tfc_threadpool_free(p);
}

static void threadpool_free_null_is_noop(void) { tfc_threadpool_free(NULL); }

/* Large blocks come back from the cache for the same rounded size; small ones never cache. */
static void block_cache_reuses_large_blocks_of_the_same_size(void) {
  tfc_block_cache_trim();
  size_t big = (1u << 20) + 100;
  char *a = tfc_block_alloc(big);
  EXPECT_TRUE(a != NULL);
  EXPECT_EQ((uintptr_t)a % TFC_ALIGN, 0);
  memset(a, 1, big);
  tfc_block_free(a, big);
  char *b = tfc_block_alloc(big + 8); /* same 64 KiB-rounded size */
  EXPECT_TRUE(b == a);
  char *c = tfc_block_alloc(big + (128u << 10)); /* another size: a new block */
  EXPECT_TRUE(c != a);
  tfc_block_free(b, big + 8);
  tfc_block_free(c, big + (128u << 10));
  tfc_block_cache_trim();
  char *d = tfc_block_alloc(1000), *e;
  tfc_block_free(d, 1000);
  e = tfc_block_alloc(1000);
  tfc_block_free(e, 1000);
  tfc_block_free(NULL, big);
}

/* Blocks up to 64 KiB come back from the thread's cache for any size of their class (four per
 * doubling above 1 KiB), each as large as asked (written whole: ASan checks the bounds). */
static void block_cache_reuses_medium_blocks_of_a_class(void) {
  tfc_block_cache_trim();
  static const size_t sizes[] = {1025, 1280, 1281, 2047, 2048, 2049, 40000, 65535, 65536};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char *a = tfc_block_alloc(sizes[i]);
    EXPECT_TRUE(a != NULL);
    EXPECT_EQ((uintptr_t)a % TFC_ALIGN, 0);
    memset(a, 1, sizes[i]);
    tfc_block_free(a, sizes[i]);
    char *b = tfc_block_alloc(sizes[i]);
    EXPECT_TRUE(b == a);
    memset(b, 2, sizes[i]);
    tfc_block_free(b, sizes[i]);
  }
  char *a = tfc_block_alloc(1100), *b;
  tfc_block_free(a, 1100);
  b = tfc_block_alloc(1200); /* 1025..1280: one class */
  EXPECT_TRUE(b == a);
  memset(b, 3, 1200);
  tfc_block_free(b, 1200);
  b = tfc_block_alloc(1300); /* the next class: another block */
  EXPECT_TRUE(b != a);
  tfc_block_free(b, 1300);
  char *big = tfc_block_alloc(65537); /* above the classes: the system's */
  memset(big, 4, 65537);
  tfc_block_free(big, 65537);
  tfc_block_cache_trim();
}

static const tfc_test tests[] = {
    TFC_TEST(block_cache_reuses_large_blocks_of_the_same_size),
    TFC_TEST(block_cache_reuses_medium_blocks_of_a_class),
    TFC_TEST(status_init_is_ok_with_empty_message),
    TFC_TEST(status_set_records_code_and_formatted_message),
    TFC_TEST(status_first_error_wins),
    TFC_TEST(status_set_ok_on_ok_status_stays_ok),
    TFC_TEST(status_clear_resets_so_a_new_error_can_be_set),
    TFC_TEST(status_assign_overwrites_held_error),
    TFC_TEST(status_prefix_puts_context_in_front),
    TFC_TEST(status_prefix_on_ok_is_noop),
    TFC_TEST(status_move_transfers_error_and_clears_source),
    TFC_TEST(status_move_keeps_destination_first_error),
    TFC_TEST(status_move_of_ok_source_leaves_destination),
    TFC_TEST(status_code_names_match_tf),
    TFC_TEST(status_code_name_of_out_of_range_code_is_not_null),
    TFC_TEST(status_try_returns_early_on_error),
    TFC_TEST(strbuf_empty_str_is_empty_string),
    TFC_TEST(strbuf_appends_puts_and_printf),
    TFC_TEST(strbuf_grows_for_long_content),
    TFC_TEST(strbuf_append_keeps_embedded_nul_bytes),
    TFC_TEST(strbuf_take_hands_string_and_resets),
    TFC_TEST(hashmap_get_on_empty_map_is_null),
    TFC_TEST(hashmap_put_then_get),
    TFC_TEST(hashmap_put_replaces_existing_value),
    TFC_TEST(hashmap_copies_keys),
    TFC_TEST(hashmap_grows_past_1000_keys),
    TFC_TEST(hashmap_binary_keys_with_nul_bytes_are_distinct),
    TFC_TEST(hashmap_empty_key_is_a_valid_key),
    TFC_TEST(hash_bytes_is_deterministic_and_length_sensitive),
    TFC_TEST(threadpool_size_is_requested_thread_count),
    TFC_TEST(threadpool_schedule_runs_every_task),
    TFC_TEST(threadpool_free_runs_queued_tasks),
    TFC_TEST(threadpool_wake_keeps_every_task_and_frees),
    TFC_TEST(threadpool_parallel_for_covers_range_exactly_once),
    TFC_TEST(threadpool_parallel_for_zero_items_calls_nothing),
    TFC_TEST(threadpool_parallel_for_null_pool_runs_inline),
    TFC_TEST(threadpool_nested_parallel_for_in_pool_tasks_does_not_deadlock),
    TFC_TEST(threadpool_parallel_for_nested_in_parallel_for),
    TFC_TEST(threadpool_free_null_is_noop),
    {0}};

TFC_TEST_MAIN(tests)
