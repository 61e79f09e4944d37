/*
 * test_table — TF's sorted string table (src/io/table.c): round trips across many blocks and
 * restart points, lookups of present and absent keys, key order, every corruption reported as
 * DATA_LOSS naming the file, and reading TF's own index file.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "io/table.h"

static char *tmp_dir(void) {
  char *d = malloc(4096);
  snprintf(d, 4096, "%s/table_tmp_XXXXXX", TFC_BINARY_DIR);
  EXPECT_TRUE(mkdtemp(d) != NULL);
  return d;
}

static void key_of(int i, char *buf, size_t n) { snprintf(buf, n, "key/%06d/suffix", i * 7); }

/* Writes n entries (key_of, value "v<i>" repeated i % 13 times) with opts; returns the path. */
static char *write_table(const char *dir, int n, const tfc_table_options *opts) {
  char *path = malloc(4200);
  snprintf(path, 4200, "%s/t.table", dir);
  FILE *f = fopen(path, "wb");
  EXPECT_TRUE(f != NULL);
  tfc_status s;
  tfc_status_init(&s);
  tfc_table_builder *b = tfc_table_builder_new(f, path, opts, &s);
  EXPECT_TRUE(b != NULL);
  for (int i = 0; i < n; i++) {
    char k[64], v[512] = "";
    key_of(i, k, sizeof k);
    for (int j = 0; j < i % 13; j++) snprintf(v + strlen(v), sizeof v - strlen(v), "v%d", i);
    EXPECT_EQ(tfc_table_builder_add(b, k, strlen(k), v, strlen(v), &s), TFC_OK);
  }
  EXPECT_EQ(tfc_table_builder_finish(b, &s), TFC_OK);
  EXPECT_EQ(tfc_table_builder_n_entries(b), n);
  EXPECT_EQ((long long)tfc_table_builder_offset(b), (long long)ftell(f));
  tfc_table_builder_free(b);
  fclose(f);
  tfc_status_fini(&s);
  return path;
}

typedef struct visit_state {
  int n;
  int bad;
} visit_state;

static int count_visit(void *arg, const char *key, size_t key_len, const char *value, size_t value_len) {
  visit_state *v = arg;
  char k[64], want[512] = "";
  key_of(v->n, k, sizeof k);
  for (int j = 0; j < v->n % 13; j++) snprintf(want + strlen(want), sizeof want - strlen(want), "v%d", v->n);
  if (key_len != strlen(k) || memcmp(key, k, key_len) || value_len != strlen(want) || memcmp(value, want, value_len))
    v->bad++;
  v->n++;
  return 0;
}

static void round_trip(int n, size_t block_size, int restart) {
  char *dir = tmp_dir();
  tfc_table_options o = {block_size, restart};
  char *path = write_table(dir, n, &o);
  tfc_status s;
  tfc_status_init(&s);
  tfc_table *t = tfc_table_open(path, &s);
  EXPECT_TRUE(t != NULL);
  for (int i = 0; i < n; i++) {
    char k[64], want[512];
    memset(want, 0, sizeof want); /* spelled out: GCC 12 -O3 does not see `= ""` cover memcmp's vlen bytes */
    key_of(i, k, sizeof k);
    for (int j = 0; j < i % 13; j++) snprintf(want + strlen(want), sizeof want - strlen(want), "v%d", i);
    const char *v;
    size_t vlen;
    EXPECT_EQ(tfc_table_get(t, k, strlen(k), &v, &vlen, &s), 1);
    EXPECT_EQ(vlen, strlen(want));
    EXPECT_TRUE(memcmp(v, want, vlen) == 0);
    /* A key between this one and the next is absent. */
    char between[80];
    snprintf(between, sizeof between, "%s!", k);
    EXPECT_EQ(tfc_table_get(t, between, strlen(between), &v, &vlen, &s), 0);
  }
  const char *v;
  size_t vlen;
  EXPECT_EQ(tfc_table_get(t, "a", 1, &v, &vlen, &s), 0);   /* before the first */
  EXPECT_EQ(tfc_table_get(t, "zzz", 3, &v, &vlen, &s), 0); /* after the last */
  EXPECT_EQ(tfc_table_get(t, "", 0, &v, &vlen, &s), 0);
  visit_state vs = {0, 0};
  EXPECT_EQ(tfc_table_visit(t, count_visit, &vs, &s), 0);
  EXPECT_EQ(vs.n, n);
  EXPECT_EQ(vs.bad, 0);
  EXPECT_EQ(s.code, TFC_OK);
  tfc_table_free(t);
  unlink(path);
  rmdir(dir);
  free(path);
  free(dir);
  tfc_status_fini(&s);
}

static void table_round_trips_many_keys_across_blocks(void) { round_trip(3000, 512, 16); }
static void table_round_trips_with_restart_every_key(void) { round_trip(500, 256, 1); }
static void table_round_trips_in_one_default_block(void) { round_trip(200, 0, 0); }
static void table_round_trips_one_key(void) { round_trip(1, 0, 0); }

static void table_multi_block_file_has_many_index_entries(void) {
  /* With 64-byte blocks nearly every entry cuts a block: the file is far larger than with the
   * default 256 KiB block, and still reads back. */
  char *dir = tmp_dir();
  tfc_table_options small = {64, 16}, big = {0, 0};
  char *p1 = write_table(dir, 300, &small);
  struct stat st1, st2;
  EXPECT_EQ(stat(p1, &st1), 0);
  char *p2 = write_table(dir, 300, &big);
  EXPECT_EQ(stat(p2, &st2), 0);
  EXPECT_TRUE(st1.st_size > st2.st_size + 300 * 5);
  unlink(p2);
  rmdir(dir);
  free(p1);
  free(p2);
  free(dir);
  round_trip(300, 64, 16);
}

static void table_rejects_keys_out_of_order(void) {
  char *dir = tmp_dir();
  char path[4200];
  snprintf(path, sizeof path, "%s/o.table", dir);
  FILE *f = fopen(path, "wb");
  tfc_status s;
  tfc_status_init(&s);
  tfc_table_builder *b = tfc_table_builder_new(f, path, NULL, &s);
  EXPECT_EQ(tfc_table_builder_add(b, "b", 1, "1", 1, &s), TFC_OK);
  EXPECT_EQ(tfc_table_builder_add(b, "a", 1, "2", 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "table keys must be added in increasing order: 'a' after 'b'");
  tfc_status_clear(&s);
  EXPECT_EQ(tfc_table_builder_add(b, "b", 1, "2", 1, &s), TFC_INVALID_ARGUMENT); /* duplicate */
  tfc_table_builder_free(b);
  fclose(f);
  unlink(path);
  rmdir(dir);
  free(dir);
  tfc_status_fini(&s);
}

/* Flips byte `at` (negative: from the end) of the file. */
static void flip_byte(const char *path, long at) {
  FILE *f = fopen(path, "r+b");
  EXPECT_TRUE(f != NULL);
  EXPECT_EQ(fseek(f, at, at < 0 ? SEEK_END : SEEK_SET), 0);
  int c = fgetc(f);
  EXPECT_EQ(fseek(f, at, at < 0 ? SEEK_END : SEEK_SET), 0);
  fputc(c ^ 0x40, f);
  fclose(f);
}

static void table_flipped_data_byte_is_data_loss_naming_file(void) {
  char *dir = tmp_dir();
  tfc_table_options o = {512, 16};
  char *path = write_table(dir, 400, &o);
  flip_byte(path, 100); /* inside the first data block */
  tfc_status s;
  tfc_status_init(&s);
  tfc_table *t = tfc_table_open(path, &s); /* the index is intact */
  EXPECT_TRUE(t != NULL);
  char k[64];
  key_of(0, k, sizeof k);
  const char *v;
  size_t vlen;
  EXPECT_EQ(tfc_table_get(t, k, strlen(k), &v, &vlen, &s), -1);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), "block checksum mismatch");
  EXPECT_CONTAINS(tfc_status_msg(&s), path);
  /* Keys in other blocks still read. */
  tfc_status_clear(&s);
  key_of(399, k, sizeof k);
  EXPECT_EQ(tfc_table_get(t, k, strlen(k), &v, &vlen, &s), 1);
  /* Visiting stops at the bad block with the error. */
  visit_state vs = {0, 0};
  EXPECT_EQ(tfc_table_visit(t, count_visit, &vs, &s), TFC_DATA_LOSS);
  tfc_table_free(t);
  unlink(path);
  rmdir(dir);
  free(path);
  free(dir);
  tfc_status_fini(&s);
}

static void table_flipped_index_or_footer_is_data_loss_at_open(void) {
  char *dir = tmp_dir();
  tfc_status s;
  tfc_status_init(&s);
  /* The index block sits just before the 48-byte footer. */
  char *path = write_table(dir, 50, NULL);
  flip_byte(path, -(TFC_TABLE_FOOTER_SIZE + 8));
  EXPECT_TRUE(tfc_table_open(path, &s) == NULL);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), path);
  EXPECT_CONTAINS(tfc_status_msg(&s), "block checksum mismatch");
  free(path);
  /* The magic number. */
  tfc_status_clear(&s);
  path = write_table(dir, 50, NULL);
  flip_byte(path, -1);
  EXPECT_TRUE(tfc_table_open(path, &s) == NULL);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  char msg[8400];
  snprintf(msg, sizeof msg, "Corrupted table file %s: not an sstable (bad magic number)", path);
  EXPECT_STREQ(tfc_status_msg(&s), msg);
  unlink(path);
  free(path);
  rmdir(dir);
  free(dir);
  tfc_status_fini(&s);
}

static void table_short_or_missing_file_errors_name_it(void) {
  char *dir = tmp_dir();
  char path[4200], msg[8400];
  snprintf(path, sizeof path, "%s/short.table", dir);
  FILE *f = fopen(path, "wb");
  fputs("not a table", f);
  fclose(f);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_TRUE(tfc_table_open(path, &s) == NULL);
  EXPECT_EQ(s.code, TFC_DATA_LOSS);
  snprintf(msg, sizeof msg, "Corrupted table file %s: file is too short to be an sstable", path);
  EXPECT_STREQ(tfc_status_msg(&s), msg);
  unlink(path);
  tfc_status_clear(&s);
  EXPECT_TRUE(tfc_table_open(path, &s) == NULL);
  EXPECT_EQ(s.code, TFC_NOT_FOUND);
  snprintf(msg, sizeof msg, "%s; No such file or directory", path);
  EXPECT_STREQ(tfc_status_msg(&s), msg);
  rmdir(dir);
  free(dir);
  tfc_status_fini(&s);
}

typedef struct keys_seen {
  char keys[16][32];
  int n;
} keys_seen;

static int collect(void *arg, const char *key, size_t key_len, const char *value, size_t value_len) {
  (void)value;
  (void)value_len;
  keys_seen *k = arg;
  if (k->n < 16) snprintf(k->keys[k->n], 32, "%.*s", (int)key_len, key);
  k->n++;
  return 0;
}

static void table_reads_tf_written_index(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_table *t = tfc_table_open(TFC_FIXTURE_DIR "/ckpt_tf/model.index", &s);
  EXPECT_TRUE(t != NULL);
  keys_seen k = {.n = 0};
  EXPECT_EQ(tfc_table_visit(t, collect, &k, &s), 0);
  static const char *want[] = {"", "big", "bytes", "empty", "flags", "ints", "scalar_double", "step", "w_float", "words"};
  EXPECT_EQ(k.n, 10);
  for (int i = 0; i < 10; i++) EXPECT_STREQ(k.keys[i], want[i]);
  const char *v;
  size_t vlen;
  EXPECT_EQ(tfc_table_get(t, "", 0, &v, &vlen, &s), 1);
  EXPECT_EQ(vlen, 6); /* num_shards 1, version {producer 1} */
  EXPECT_TRUE(memcmp(v, "\x08\x01\x1a\x02\x08\x01", 6) == 0);
  EXPECT_EQ(tfc_table_get(t, "word", 4, &v, &vlen, &s), 0);
  tfc_table_free(t);
  tfc_status_fini(&s);
}

static void table_writer_reproduces_tf_index_bytes(void) {
  /* Re-add every entry of TF's index file: the new file must equal TF's byte for byte. */
  tfc_status s;
  tfc_status_init(&s);
  const char *src = TFC_FIXTURE_DIR "/ckpt_tf/model.index";
  tfc_table *t = tfc_table_open(src, &s);
  EXPECT_TRUE(t != NULL);
  char *dir = tmp_dir();
  char path[4200];
  snprintf(path, sizeof path, "%s/copy.index", dir);
  FILE *f = fopen(path, "wb");
  tfc_table_builder *b = tfc_table_builder_new(f, path, NULL, &s);
  static const char *keys[] = {"", "big", "bytes", "empty", "flags", "ints", "scalar_double", "step", "w_float", "words"};
  for (int i = 0; i < 10; i++) {
    const char *v;
    size_t vlen;
    EXPECT_EQ(tfc_table_get(t, keys[i], strlen(keys[i]), &v, &vlen, &s), 1);
    char *copy = malloc(vlen + 1);
    memcpy(copy, v, vlen);
    EXPECT_EQ(tfc_table_builder_add(b, keys[i], strlen(keys[i]), copy, vlen, &s), TFC_OK);
    free(copy);
  }
  EXPECT_EQ(tfc_table_builder_finish(b, &s), TFC_OK);
  tfc_table_builder_free(b);
  fclose(f);
  tfc_table_free(t);
  FILE *a = fopen(src, "rb"), *c = fopen(path, "rb");
  char ba[4096], bc[4096];
  size_t na = fread(ba, 1, sizeof ba, a), nc = fread(bc, 1, sizeof bc, c);
  fclose(a);
  fclose(c);
  EXPECT_EQ(nc, na);
  EXPECT_TRUE(memcmp(ba, bc, na) == 0);
  unlink(path);
  rmdir(dir);
  free(dir);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(table_round_trips_many_keys_across_blocks),
    TFC_TEST(table_round_trips_with_restart_every_key),
    TFC_TEST(table_round_trips_in_one_default_block),
    TFC_TEST(table_round_trips_one_key),
    TFC_TEST(table_multi_block_file_has_many_index_entries),
    TFC_TEST(table_rejects_keys_out_of_order),
    TFC_TEST(table_flipped_data_byte_is_data_loss_naming_file),
    TFC_TEST(table_flipped_index_or_footer_is_data_loss_at_open),
    TFC_TEST(table_short_or_missing_file_errors_name_it),
    TFC_TEST(table_reads_tf_written_index),
    TFC_TEST(table_writer_reproduces_tf_index_bytes),
    {0}};
TFC_TEST_MAIN(tests)
