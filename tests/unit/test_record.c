/*
 * Tests of src/io/crc32c and src/io/record: CRC-32C against published vectors and TF's masked
 * values, TFRecord round trips (plain, ZLIB, GZIP; empty and larger-than-buffer records),
 * corruption and truncation errors with TF's codes and texts, and TFRecord files written by
 * TensorFlow (tests/fixtures/example_records.tfrecord{,.gz}, see gen_example.py) read back
 * byte for byte; and the public TFC_*Record* API (include/tfc/record.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "io/crc32c.h"
#include "io/record.h"
#include "tensorflow/c/c_api.h"
#include "tfc/record.h"

#define FAIL(...) tfc_test_fail(__FILE__, __LINE__, __VA_ARGS__)

/* A fresh path under the build tree, unique per test process. */
static const char *tmp_path(const char *name) {
  static char buf[8][512];
  static int next;
  char *p = buf[next++ & 7];
  snprintf(p, 512, "%s/tests/record_%d_%s", TFC_BINARY_DIR, (int)getpid(), name);
  return p;
}

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) FAIL("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(len + 1);
  if (fread(b, 1, len, f) != (size_t)len) FAIL("short read of %s", path);
  fclose(f);
  *n = (size_t)len;
  return b;
}

static void spit(const char *path, const uint8_t *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) FAIL("cannot create %s", path);
  if (fwrite(b, 1, n, f) != n) FAIL("short write of %s", path);
  fclose(f);
}

/* ---- CRC-32C ----------------------------------------------------------------------------- */

static void crc32c_matches_known_vectors(void) {
  EXPECT_EQ(tfc_crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(tfc_crc32c("", 0), 0u);
  /* RFC 3720 (iSCSI) B.4 vectors. */
  uint8_t buf[48];
  memset(buf, 0, 32);
  EXPECT_EQ(tfc_crc32c(buf, 32), 0x8A9136AAu);
  memset(buf, 0xff, 32);
  EXPECT_EQ(tfc_crc32c(buf, 32), 0x62A8AB43u);
  for (int i = 0; i < 32; i++) buf[i] = (uint8_t)i;
  EXPECT_EQ(tfc_crc32c(buf, 32), 0x46DD794Eu);
  for (int i = 0; i < 32; i++) buf[i] = (uint8_t)(31 - i);
  EXPECT_EQ(tfc_crc32c(buf, 32), 0x113FDB5Cu);
  static const uint8_t iscsi_read[48] = {
      0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
      0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(tfc_crc32c(iscsi_read, 48), 0xD9963A56u);
}

static void crc32c_extend_equals_whole_at_every_split_and_alignment(void) {
  uint8_t data[300];
  for (int i = 0; i < 300; i++) data[i] = (uint8_t)(i * 37 + 11);
  for (int start = 0; start < 9; start++) {
    /* Bytewise reference, independent of the sliced tables. */
    uint32_t ref = ~0u;
    for (int i = start; i < 300; i++) {
      ref ^= data[i];
      for (int k = 0; k < 8; k++) ref = (ref >> 1) ^ (0x82f63b78u & (0u - (ref & 1)));
    }
    ref = ~ref;
    EXPECT_EQ(tfc_crc32c(data + start, 300 - start), ref);
    for (int split = 0; split <= 300 - start; split += 13) {
      uint32_t c = tfc_crc32c(data + start, split);
      EXPECT_EQ(tfc_crc32c_extend(c, data + start + split, 300 - start - split), ref);
    }
  }
}

static void crc32c_mask_matches_tensorflow(void) {
  /* Values from tensorboard's masked_crc32c: "123456789", 8 zero bytes (the length field of
   * an empty record), the length field of a 5-byte record, and "alpha". */
  EXPECT_EQ(tfc_crc32c_mask(tfc_crc32c("123456789", 9)), 0xc78ab0e5u);
  uint8_t zero8[8] = {0}, five[8] = {5};
  EXPECT_EQ(tfc_crc32c_mask(tfc_crc32c(zero8, 8)), 0x07980329u);
  EXPECT_EQ(tfc_crc32c_mask(tfc_crc32c(five, 8)), 0x3e04b2eau);
  EXPECT_EQ(tfc_crc32c_mask(tfc_crc32c("alpha", 5)), 0x0185dc8au);
  uint8_t header[12], footer[4];
  tfc_record_frame_header(5, "alpha", header, footer);
  EXPECT_EQ(header[0], 5);
  EXPECT_EQ(header[8] | header[9] << 8 | header[10] << 16 | (uint32_t)header[11] << 24, 0x3e04b2eau);
  EXPECT_EQ(footer[0] | footer[1] << 8 | footer[2] << 16 | (uint32_t)footer[3] << 24, 0x0185dc8au);
  for (uint32_t v = 1; v; v <<= 1) EXPECT_EQ(tfc_crc32c_unmask(tfc_crc32c_mask(v)), v);
}

/* ---- round trips ------------------------------------------------------------------------- */

static void write_records(const char *path, tfc_compression c, int n, size_t (*size_of)(int)) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_writer *w = tfc_record_writer_open(path, c, 0, &s);
  if (!w) FAIL("open %s: %s", path, tfc_status_msg(&s));
  for (int i = 0; i < n; i++) {
    size_t len = size_of(i);
    uint8_t *d = malloc(len + 1);
    for (size_t k = 0; k < len; k++) d[k] = (uint8_t)(k * 7 + i);
    EXPECT_EQ(tfc_record_write(w, d, len, &s), TFC_OK);
    free(d);
    if (i == n / 2) EXPECT_EQ(tfc_record_writer_flush(w, &s), TFC_OK);
  }
  EXPECT_EQ(tfc_record_writer_close(w, &s), TFC_OK);
  tfc_status_fini(&s);
}

static void check_records(const char *path, tfc_compression c, int n, size_t (*size_of)(int)) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_reader *r = tfc_record_reader_open(path, c, &s);
  if (!r) FAIL("open %s: %s", path, tfc_status_msg(&s));
  EXPECT_STREQ(tfc_record_reader_path(r), path);
  uint64_t want_off = 0;
  for (int i = 0; i < n; i++) {
    const char *d;
    size_t len;
    uint64_t off;
    int rc = tfc_record_read(r, &d, &len, &off, &s);
    if (rc != TFC_OK) FAIL("record %d: %s", i, tfc_status_msg(&s));
    EXPECT_EQ(off, want_off);
    EXPECT_EQ(len, size_of(i));
    for (size_t k = 0; k < len; k++)
      if ((uint8_t)d[k] != (uint8_t)(k * 7 + i)) FAIL("record %d byte %zu differs", i, k);
    want_off += 16 + len;
    EXPECT_EQ(tfc_record_reader_offset(r), want_off);
  }
  const char *d;
  size_t len;
  EXPECT_EQ(tfc_record_read(r, &d, &len, NULL, &s), TFC_OUT_OF_RANGE);
  EXPECT_STREQ(tfc_status_msg(&s), "End of file");
  tfc_status_clear(&s);
  /* The end stays the end. */
  EXPECT_EQ(tfc_record_read(r, &d, &len, NULL, &s), TFC_OUT_OF_RANGE);
  tfc_record_reader_free(r);
  tfc_status_fini(&s);
}

static size_t small_sizes(int i) { return (size_t)(i % 5 == 0 ? 0 : i * 13 % 1000); }
/* Records around and far above the reader's 256 KiB window. */
static size_t large_sizes(int i) {
  static const size_t sizes[] = {3, 262144 - 16, 262144, 262145, 1 << 20, 5, 3 << 20, 0, 700000};
  return sizes[i];
}

static void roundtrip_plain_small_and_empty_records(void) {
  const char *p = tmp_path("plain.tfrecord");
  write_records(p, TFC_COMPRESSION_NONE, 2000, small_sizes);
  check_records(p, TFC_COMPRESSION_NONE, 2000, small_sizes);
  unlink(p);
}

static void roundtrip_records_larger_than_the_buffer(void) {
  static const tfc_compression cs[] = {TFC_COMPRESSION_NONE, TFC_COMPRESSION_ZLIB, TFC_COMPRESSION_GZIP};
  for (int k = 0; k < 3; k++) {
    const char *p = tmp_path("large.tfrecord");
    write_records(p, cs[k], 9, large_sizes);
    check_records(p, cs[k], 9, large_sizes);
    unlink(p);
  }
}

static void roundtrip_zlib_and_gzip_streams(void) {
  const char *pz = tmp_path("z.tfrecord"), *pg = tmp_path("g.tfrecord");
  write_records(pz, TFC_COMPRESSION_ZLIB, 3000, small_sizes);
  write_records(pg, TFC_COMPRESSION_GZIP, 3000, small_sizes);
  check_records(pz, TFC_COMPRESSION_ZLIB, 3000, small_sizes);
  check_records(pg, TFC_COMPRESSION_GZIP, 3000, small_sizes);
  /* The streams are zlib's own formats: the magic bytes say so. */
  size_t nz, ng;
  uint8_t *z = slurp(pz, &nz), *g = slurp(pg, &ng);
  EXPECT_EQ(z[0], 0x78);
  EXPECT_EQ(g[0], 0x1f);
  EXPECT_EQ(g[1], 0x8b);
  free(z);
  free(g);
  unlink(pz);
  unlink(pg);
}

static void empty_file_is_end_of_file(void) {
  static const tfc_compression cs[] = {TFC_COMPRESSION_NONE, TFC_COMPRESSION_ZLIB, TFC_COMPRESSION_GZIP};
  for (int k = 0; k < 3; k++) {
    const char *p = tmp_path("empty.tfrecord");
    spit(p, (const uint8_t *)"", 0);
    tfc_status s;
    tfc_status_init(&s);
    tfc_record_reader *r = tfc_record_reader_open(p, cs[k], &s);
    const char *d;
    size_t n;
    EXPECT_EQ(tfc_record_read(r, &d, &n, NULL, &s), TFC_OUT_OF_RANGE);
    EXPECT_STREQ(tfc_status_msg(&s), "End of file");
    tfc_record_reader_free(r);
    tfc_status_fini(&s);
    unlink(p);
  }
}

static void append_adds_records_after_existing_ones(void) {
  const char *p = tmp_path("append.tfrecord");
  tfc_status s;
  tfc_status_init(&s);
  for (int round = 0; round < 2; round++) {
    tfc_record_writer *w = tfc_record_writer_open(p, TFC_COMPRESSION_NONE, round, &s);
    EXPECT_TRUE(w != NULL);
    EXPECT_EQ(tfc_record_write(w, round ? "second" : "first", round ? 6 : 5, &s), TFC_OK);
    EXPECT_EQ(tfc_record_writer_close(w, &s), TFC_OK);
  }
  tfc_record_reader *r = tfc_record_reader_open(p, TFC_COMPRESSION_NONE, &s);
  const char *d;
  size_t n;
  EXPECT_EQ(tfc_record_read(r, &d, &n, NULL, &s), TFC_OK);
  EXPECT_EQ(n, 5);
  EXPECT_TRUE(!memcmp(d, "first", 5));
  EXPECT_EQ(tfc_record_read(r, &d, &n, NULL, &s), TFC_OK);
  EXPECT_EQ(n, 6);
  EXPECT_TRUE(!memcmp(d, "second", 6));
  tfc_record_reader_free(r);
  EXPECT_TRUE(tfc_record_writer_open(p, TFC_COMPRESSION_GZIP, 1, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "cannot append to a compressed TFRecord file");
  tfc_status_fini(&s);
  unlink(p);
}

/* ---- errors ------------------------------------------------------------------------------ */

static void open_errors_name_the_file(void) {
  tfc_status s;
  tfc_status_init(&s);
  const char *p = tmp_path("does_not_exist.tfrecord");
  EXPECT_TRUE(tfc_record_reader_open(p, TFC_COMPRESSION_NONE, &s) == NULL);
  EXPECT_EQ(s.code, TFC_NOT_FOUND);
  char want[600];
  snprintf(want, sizeof want, "%s; No such file or directory", p);
  EXPECT_STREQ(tfc_status_msg(&s), want);
  tfc_status_clear(&s);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/tests/no_such_dir_%d/x.tfrecord", TFC_BINARY_DIR, (int)getpid());
  EXPECT_TRUE(tfc_record_writer_open(dir, TFC_COMPRESSION_NONE, 0, &s) == NULL);
  EXPECT_EQ(s.code, TFC_NOT_FOUND);
  EXPECT_CONTAINS(tfc_status_msg(&s), "x.tfrecord; No such file or directory");
  tfc_status_clear(&s);
  EXPECT_TRUE(tfc_record_reader_open(TFC_BINARY_DIR, TFC_COMPRESSION_NONE, &s) == NULL);
  EXPECT_EQ(s.code, TFC_FAILED_PRECONDITION);
  EXPECT_CONTAINS(tfc_status_msg(&s), "; Is a directory");
  tfc_status_fini(&s);
}

static void compression_names_parse_like_tensorflow(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_compression c = TFC_COMPRESSION_GZIP;
  EXPECT_EQ(tfc_compression_parse("", &c, &s), TFC_OK);
  EXPECT_EQ(c, TFC_COMPRESSION_NONE);
  EXPECT_EQ(tfc_compression_parse("ZLIB", &c, &s), TFC_OK);
  EXPECT_EQ(c, TFC_COMPRESSION_ZLIB);
  EXPECT_EQ(tfc_compression_parse("GZIP", &c, &s), TFC_OK);
  EXPECT_EQ(c, TFC_COMPRESSION_GZIP);
  EXPECT_EQ(tfc_compression_parse("gzip", &c, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Unsupported compression_type: 'gzip'");
  tfc_status_fini(&s);
}

/* Writes three records ("alpha", "", "gamma!") and returns the file bytes. */
static uint8_t *three_records(const char *p, size_t *n) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_writer *w = tfc_record_writer_open(p, TFC_COMPRESSION_NONE, 0, &s);
  tfc_record_write(w, "alpha", 5, &s);
  tfc_record_write(w, "", 0, &s);
  tfc_record_write(w, "gamma!", 6, &s);
  EXPECT_EQ(tfc_record_writer_close(w, &s), TFC_OK);
  tfc_status_fini(&s);
  return slurp(p, n); /* offsets: 0, 21, 37; size 59 */
}

/* Reads p expecting two good records, then `code` with `msg` (a substring) at the third. */
static void expect_third_fails(const char *p, int code, const char *msg) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_reader *r = tfc_record_reader_open(p, TFC_COMPRESSION_NONE, &s);
  const char *d;
  size_t n;
  EXPECT_EQ(tfc_record_read(r, &d, &n, NULL, &s), TFC_OK);
  EXPECT_EQ(tfc_record_read(r, &d, &n, NULL, &s), TFC_OK);
  EXPECT_EQ(n, 0);
  EXPECT_EQ(tfc_record_read(r, &d, &n, NULL, &s), code);
  EXPECT_CONTAINS(tfc_status_msg(&s), msg);
  EXPECT_CONTAINS(tfc_status_msg(&s), p);
  /* The reader stays at the failed record. */
  EXPECT_EQ(tfc_record_reader_offset(r), 37);
  tfc_status_clear(&s);
  EXPECT_EQ(tfc_record_read(r, &d, &n, NULL, &s), code);
  tfc_record_reader_free(r);
  tfc_status_fini(&s);
}

static void flipped_bytes_are_data_loss_naming_offset(void) {
  const char *p = tmp_path("flip.tfrecord");
  size_t n;
  uint8_t *good = three_records(p, &n);
  EXPECT_EQ(n, 59);
  static const struct {
    size_t at;
    const char *msg;
  } cases[] = {
      {37 + 0, "corrupted record at 37 in file "},      /* length */
      {37 + 7, "the length's checksum does not match"}, /* length, high byte */
      {37 + 9, "the length's checksum does not match"}, /* length crc */
      {37 + 12, "the data's checksum does not match"},  /* data */
      {37 + 17, "the data's checksum does not match"},  /* data */
      {37 + 19, "the data's checksum does not match"},  /* data crc */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    uint8_t bad[59];
    memcpy(bad, good, 59);
    bad[cases[k].at] ^= 0x10;
    spit(p, bad, 59);
    expect_third_fails(p, TFC_DATA_LOSS, cases[k].msg);
  }
  free(good);
  unlink(p);
}

static void truncated_files_are_data_loss(void) {
  const char *p = tmp_path("trunc.tfrecord");
  size_t n;
  uint8_t *good = three_records(p, &n);
  for (size_t cut = 38; cut < 59; cut++) {
    spit(p, good, cut);
    expect_third_fails(p, TFC_DATA_LOSS, "truncated record at 37 in file ");
  }
  spit(p, good, 40);
  expect_third_fails(p, TFC_DATA_LOSS, "the file ends inside the record's header (3 of 12 bytes)");
  spit(p, good, 55);
  expect_third_fails(p, TFC_DATA_LOSS, "the file ends inside the record (18 of 22 bytes)");
  free(good);
  unlink(p);
}

/* Counting walks the framing: the count of a sound file; a bad length or a cut file is the
 * reader's own DATA_LOSS at the same offset; damage inside the data is left to the reader. */
static void count_walks_the_framing(void) {
  const char *p = tmp_path("count.tfrecord");
  size_t n;
  uint8_t *good = three_records(p, &n);
  tfc_status s;
  tfc_status_init(&s);
  uint64_t count = 99;
  EXPECT_EQ(tfc_record_count(p, TFC_COMPRESSION_NONE, &count, &s), TFC_OK);
  EXPECT_EQ(count, 3);
  uint8_t bad[59];
  memcpy(bad, good, 59);
  bad[37 + 1] ^= 0x10; /* the third record's length */
  spit(p, bad, 59);
  EXPECT_EQ(tfc_record_count(p, TFC_COMPRESSION_NONE, &count, &s), TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), "corrupted record at 37 in file ");
  EXPECT_CONTAINS(tfc_status_msg(&s), "the length's checksum does not match");
  tfc_status_clear(&s);
  spit(p, good, 55);
  EXPECT_EQ(tfc_record_count(p, TFC_COMPRESSION_NONE, &count, &s), TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), "truncated record at 37 in file ");
  EXPECT_CONTAINS(tfc_status_msg(&s), "the file ends inside the record (18 of 22 bytes)");
  tfc_status_clear(&s);
  spit(p, good, 40);
  EXPECT_EQ(tfc_record_count(p, TFC_COMPRESSION_NONE, &count, &s), TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), "the file ends inside the record's header (3 of 12 bytes)");
  tfc_status_clear(&s);
  memcpy(bad, good, 59);
  bad[37 + 14] ^= 0x10; /* inside the data: the framing is sound */
  spit(p, bad, 59);
  EXPECT_EQ(tfc_record_count(p, TFC_COMPRESSION_NONE, &count, &s), TFC_OK);
  EXPECT_EQ(count, 3);
  spit(p, good, 0);
  EXPECT_EQ(tfc_record_count(p, TFC_COMPRESSION_NONE, &count, &s), TFC_OK);
  EXPECT_EQ(count, 0);
  unlink(p);
  EXPECT_EQ(tfc_record_count(p, TFC_COMPRESSION_NONE, &count, &s), TFC_NOT_FOUND);
  EXPECT_CONTAINS(tfc_status_msg(&s), "No such file or directory");
  tfc_status_clear(&s);
  /* Compressed: read through. */
  const char *z = tmp_path("count.tfrecord.gz");
  write_records(z, TFC_COMPRESSION_GZIP, 7, small_sizes);
  EXPECT_EQ(tfc_record_count(z, TFC_COMPRESSION_GZIP, &count, &s), TFC_OK);
  EXPECT_EQ(count, 7);
  /* The public call. */
  TF_Status *st = TF_NewStatus();
  EXPECT_EQ(TFC_CountRecords(z, "GZIP", st), 7);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  spit(p, good, 55);
  EXPECT_EQ(TFC_CountRecords(p, "", st), -1);
  EXPECT_EQ(TF_GetCode(st), TF_DATA_LOSS);
  EXPECT_CONTAINS(TF_Message(st), "truncated record at 37 in file ");
  TF_DeleteStatus(st);
  unlink(z);
  unlink(p);
  free(good);
  tfc_status_fini(&s);
}

static void corrupt_compressed_streams_are_data_loss(void) {
  const char *p = tmp_path("badgz.tfrecord");
  write_records(p, TFC_COMPRESSION_GZIP, 200, small_sizes);
  size_t n;
  uint8_t *b = slurp(p, &n);
  tfc_status s;
  tfc_status_init(&s);
  /* Truncated stream. */
  spit(p, b, n / 2);
  tfc_record_reader *r = tfc_record_reader_open(p, TFC_COMPRESSION_GZIP, &s);
  const char *d;
  size_t len;
  int rc;
  int count = 0;
  while ((rc = tfc_record_read(r, &d, &len, NULL, &s)) == TFC_OK) count++;
  EXPECT_EQ(rc, TFC_DATA_LOSS);
  EXPECT_TRUE(count < 200);
  EXPECT_CONTAINS(tfc_status_msg(&s), "record at ");
  EXPECT_CONTAINS(tfc_status_msg(&s), p);
  tfc_record_reader_free(r);
  tfc_status_clear(&s);
  /* A plain file read as GZIP. */
  free(three_records(p, &len));
  r = tfc_record_reader_open(p, TFC_COMPRESSION_GZIP, &s);
  EXPECT_EQ(tfc_record_read(r, &d, &len, NULL, &s), TFC_DATA_LOSS);
  EXPECT_CONTAINS(tfc_status_msg(&s), "corrupted record at 0 in file ");
  EXPECT_CONTAINS(tfc_status_msg(&s), "inflate() failed with error -3: incorrect header check");
  tfc_record_reader_free(r);
  tfc_status_fini(&s);
  free(b);
  unlink(p);
}

/* A stream damaged after its first record: the first record (whole before the damage) reads,
 * the error names the record the damage is in, and a retry fails the same way. */
static void compressed_damage_fails_the_record_it_is_in(void) {
  const char *p = tmp_path("damaged.zlib");
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_writer *w = tfc_record_writer_open(p, TFC_COMPRESSION_ZLIB, 0, &s);
  EXPECT_EQ(tfc_record_write(w, "first", 5, &s), TFC_OK);
  EXPECT_EQ(tfc_record_writer_flush(w, &s), TFC_OK); /* a sync point: "first" is whole before it */
  struct stat st;
  EXPECT_EQ(stat(p, &st), 0);
  EXPECT_EQ(tfc_record_write(w, "second", 6, &s), TFC_OK);
  EXPECT_EQ(tfc_record_writer_close(w, &s), TFC_OK);
  size_t n;
  uint8_t *b = slurp(p, &n);
  EXPECT_TRUE((size_t)st.st_size < n);
  b[st.st_size] = 0xff; /* the next deflate block's header: a reserved block type */
  spit(p, b, n);
  tfc_record_reader *r = tfc_record_reader_open(p, TFC_COMPRESSION_ZLIB, &s);
  const char *d;
  size_t len;
  EXPECT_EQ(tfc_record_read(r, &d, &len, NULL, &s), TFC_OK);
  EXPECT_EQ(len, 5);
  EXPECT_TRUE(memcmp(d, "first", 5) == 0);
  for (int retry = 0; retry < 2; retry++) {
    tfc_status_clear(&s);
    EXPECT_EQ(tfc_record_read(r, &d, &len, NULL, &s), TFC_DATA_LOSS);
    EXPECT_CONTAINS(tfc_status_msg(&s), "corrupted record at 21 in file ");
    EXPECT_CONTAINS(tfc_status_msg(&s), "inflate() failed with error -3: invalid block type");
  }
  tfc_record_reader_free(r);
  tfc_status_fini(&s);
  free(b);
  unlink(p);
}

/* ---- files written by TensorFlow ----------------------------------------------------------- */

static void read_tensorflow_file(const char *name, tfc_compression c) {
  size_t tn;
  uint8_t *text = slurp(TFC_FIXTURE_DIR "/example_records.txt", &tn);
  char path[600];
  snprintf(path, sizeof path, "%s/%s", TFC_FIXTURE_DIR, name);
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_reader *r = tfc_record_reader_open(path, c, &s);
  if (!r) FAIL("%s", tfc_status_msg(&s));
  int records = 0;
  char *save = NULL;
  text[tn] = 0;
  for (char *line = strtok_r((char *)text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#') continue;
    const char *d;
    size_t len;
    if (tfc_record_read(r, &d, &len, NULL, &s) != TFC_OK) FAIL("%s", tfc_status_msg(&s));
    EXPECT_EQ(len * 2, strlen(line));
    for (size_t k = 0; k < len; k++) {
      unsigned v;
      sscanf(line + 2 * k, "%2x", &v);
      if ((uint8_t)d[k] != v) FAIL("%s record %d byte %zu differs", name, records, k);
    }
    records++;
  }
  EXPECT_EQ(records, 5);
  const char *d;
  size_t len;
  EXPECT_EQ(tfc_record_read(r, &d, &len, NULL, &s), TFC_OUT_OF_RANGE);
  tfc_record_reader_free(r);
  tfc_status_fini(&s);
  free(text);
}

static void reads_tensorflow_written_plain_file(void) {
  read_tensorflow_file("example_records.tfrecord", TFC_COMPRESSION_NONE);
}
static void reads_tensorflow_written_gzip_file(void) {
  read_tensorflow_file("example_records.tfrecord.gz", TFC_COMPRESSION_GZIP);
}

static void writes_the_bytes_tensorflow_writes(void) {
  /* Plain framing is deterministic: re-framing TF's records reproduces TF's file exactly. */
  size_t tn, fn;
  uint8_t *tf_file = slurp(TFC_FIXTURE_DIR "/example_records.tfrecord", &fn);
  const char *p = tmp_path("rewrite.tfrecord");
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_reader *r = tfc_record_reader_open(TFC_FIXTURE_DIR "/example_records.tfrecord",
                                                TFC_COMPRESSION_NONE, &s);
  tfc_record_writer *w = tfc_record_writer_open(p, TFC_COMPRESSION_NONE, 0, &s);
  const char *d;
  size_t len;
  while (tfc_record_read(r, &d, &len, NULL, &s) == TFC_OK) EXPECT_EQ(tfc_record_write(w, d, len, &s), TFC_OK);
  EXPECT_EQ(s.code, TFC_OUT_OF_RANGE);
  tfc_status_clear(&s);
  EXPECT_EQ(tfc_record_writer_close(w, &s), TFC_OK);
  tfc_record_reader_free(r);
  uint8_t *mine = slurp(p, &tn);
  EXPECT_EQ(tn, fn);
  EXPECT_TRUE(!memcmp(mine, tf_file, fn));
  free(mine);
  free(tf_file);
  tfc_status_fini(&s);
  unlink(p);
}


/* ---- the public API (include/tfc/record.h) ------------------------------------------------ */

static void public_api_round_trip_and_errors(void) {
  static const char *comps[] = {"", "ZLIB", "GZIP"};
  TF_Status *st = TF_NewStatus();
  for (int k = 0; k < 3; k++) {
    const char *p = tmp_path("public.tfrecord");
    TFC_RecordWriter *w = TFC_NewRecordWriter(p, comps[k], st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    TFC_RecordWriterWrite(w, "one", 3, st);
    TFC_RecordWriterFlush(w, st);
    TFC_RecordWriterWrite(w, "", 0, st);
    TFC_RecordWriterWrite(w, "three", 5, st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    TFC_CloseRecordWriter(w, st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    TFC_RecordReader *r = TFC_NewRecordReader(p, comps[k], st);
    const char *d;
    size_t n;
    EXPECT_EQ(TFC_RecordReaderRead(r, &d, &n, st), 1);
    EXPECT_EQ(n, 3);
    EXPECT_TRUE(!memcmp(d, "one", 3));
    EXPECT_EQ(TFC_RecordReaderRead(r, &d, &n, st), 1);
    EXPECT_EQ(n, 0);
    EXPECT_EQ(TFC_RecordReaderRead(r, &d, &n, st), 1);
    EXPECT_TRUE(n == 5 && !memcmp(d, "three", 5));
    EXPECT_EQ(TFC_RecordReaderRead(r, &d, &n, st), 0);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    TFC_DeleteRecordReader(r);
    unlink(p);
  }
  EXPECT_TRUE(TFC_NewRecordReader(tmp_path("missing.tfrecord"), NULL, st) == NULL);
  EXPECT_EQ(TF_GetCode(st), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(st), "missing.tfrecord; No such file or directory");
  EXPECT_TRUE(TFC_NewRecordWriter(tmp_path("x.tfrecord"), "LZ4", st) == NULL);
  EXPECT_EQ(TF_GetCode(st), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(st), "Unsupported compression_type: 'LZ4'");
  /* A corrupt record comes back as DATA_LOSS with 0. */
  const char *p = tmp_path("corrupt.tfrecord");
  size_t len;
  uint8_t *b = three_records(p, &len);
  b[50] ^= 1;
  spit(p, b, len);
  free(b);
  TFC_RecordReader *r = TFC_NewRecordReader(p, "", st);
  const char *d;
  size_t n;
  EXPECT_EQ(TFC_RecordReaderRead(r, &d, &n, st), 1);
  EXPECT_EQ(TFC_RecordReaderRead(r, &d, &n, st), 1);
  EXPECT_EQ(TFC_RecordReaderRead(r, &d, &n, st), 0);
  EXPECT_EQ(TF_GetCode(st), TF_DATA_LOSS);
  EXPECT_CONTAINS(TF_Message(st), "corrupted record at 37 in file ");
  TFC_DeleteRecordReader(r);
  unlink(p);
  TFC_DeleteRecordReader(NULL);
  TFC_CloseRecordWriter(NULL, st);
  TF_DeleteStatus(st);
}

static const tfc_test tests[] = {
    TFC_TEST(crc32c_matches_known_vectors),
    TFC_TEST(crc32c_extend_equals_whole_at_every_split_and_alignment),
    TFC_TEST(crc32c_mask_matches_tensorflow),
    TFC_TEST(roundtrip_plain_small_and_empty_records),
    TFC_TEST(roundtrip_records_larger_than_the_buffer),
    TFC_TEST(roundtrip_zlib_and_gzip_streams),
    TFC_TEST(empty_file_is_end_of_file),
    TFC_TEST(count_walks_the_framing),
    TFC_TEST(append_adds_records_after_existing_ones),
    TFC_TEST(open_errors_name_the_file),
    TFC_TEST(compression_names_parse_like_tensorflow),
    TFC_TEST(flipped_bytes_are_data_loss_naming_offset),
    TFC_TEST(truncated_files_are_data_loss),
    TFC_TEST(compressed_damage_fails_the_record_it_is_in),
    TFC_TEST(corrupt_compressed_streams_are_data_loss),
    TFC_TEST(reads_tensorflow_written_plain_file),
    TFC_TEST(reads_tensorflow_written_gzip_file),
    TFC_TEST(writes_the_bytes_tensorflow_writes),
    TFC_TEST(public_api_round_trip_and_errors),
    {0},
};
TFC_TEST_MAIN(tests)
