/* libFuzzer harness: TensorBoard event files (io/events.h) and the TFRecord framing under them
 * (io/record.h), uncompressed and in its ZLIB and GZIP streams.
 *
 * Input: a flags byte, then a file's bytes. Unless flag 1 is set, the harness first repairs
 * the framing checksums of the records it can walk (each header's length CRC and each data
 * CRC, following the lengths as they are), as a fuzzer cannot: otherwise almost every
 * mutation would stop at the first checksum and the Event decoding would never see it. Then:
 *   - it reads the (repaired) file as an event file with tfc_event_reader_next, and as an
 *     uncompressed TFRecord file, until the end or an error;
 *   - it reads the file as given as a ZLIB and as a GZIP TFRecord file (corrupt streams);
 *   - it compresses the repaired file (GZIP when flag 2 is set, else ZLIB) and reads that back
 *     record by record (valid streams whose records are the fuzzer's).
 *
 * TFC_FUZZ_DEBUG=1 prints what each reader came to (when triaging or checking seeds).
 *
 * Checks beyond "no crash, no leak, no hang": a reader ends with OUT_OF_RANGE or fails with a
 * status and a message; after a failure it stays at the record at fault (a retry fails the
 * same way, as record.h promises); records' offsets only grow; a compressed file holds the
 * same records as the uncompressed one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "io/crc32c.h"
#include "io/events.h"
#include "io/record.h"

static char g_dir[256], g_path[300];

static void cleanup(void) {
  unlink(g_path);
  rmdir(g_dir);
}

static void setup(void) {
  if (g_dir[0]) return;
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/tfc_fuzz_events_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) abort();
  snprintf(g_path, sizeof g_path, "%s/events.out.tfevents.0.fuzz", g_dir);
  atexit(cleanup);
}

/* Each reader stops at the first error; a file this size holds fewer records than this. */
#define MAX_RECORDS 100000

static void read_events(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_event_reader *r = tfc_event_reader_open(g_path, &s);
  if (!r) abort(); /* the file exists and is readable */
  int rc;
  for (int i = 0;; i++) {
    if (i > MAX_RECORDS) abort();
    Tensorflow__Event *e = NULL;
    rc = tfc_event_reader_next(r, &e, &s);
    if (rc != TFC_OK) {
      if (e) abort();
      break;
    }
    if (!e) abort();
    tensorflow__event__free_unpacked(e, NULL);
  }
  if (rc != TFC_OUT_OF_RANGE && rc != TFC_DATA_LOSS && rc != TFC_RESOURCE_EXHAUSTED) abort();
  if (!*tfc_status_msg(&s)) abort();
  if (getenv("TFC_FUZZ_DEBUG")) fprintf(stderr, "events: %s\n", tfc_status_msg(&s));
  tfc_event_reader_free(r);
  tfc_status_fini(&s);
}

/* Reads path as records; returns how many read before the end or the error (*code). */
static int read_records(tfc_compression c, int *code) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_reader *r = tfc_record_reader_open(g_path, c, &s);
  if (!r) abort();
  int rc, i;
  uint64_t last = 0;
  for (i = 0;; i++) {
    if (i > MAX_RECORDS) abort();
    const char *data;
    size_t len;
    uint64_t off;
    rc = tfc_record_read(r, &data, &len, &off, &s);
    if (rc != TFC_OK) break;
    if (i > 0 && off <= last) abort();
    last = off;
  }
  if (rc != TFC_OUT_OF_RANGE) {
    if (rc != TFC_DATA_LOSS && rc != TFC_RESOURCE_EXHAUSTED) abort();
    /* The reader stays at the failed record: a retry fails again with the same code. */
    int code = rc;
    tfc_status_clear(&s);
    const char *data;
    size_t len;
    if (tfc_record_read(r, &data, &len, NULL, &s) != code) abort();
  }
  if (!*tfc_status_msg(&s)) abort();
  if (getenv("TFC_FUZZ_DEBUG")) fprintf(stderr, "records (%d): %d, %s\n", (int)c, i, tfc_status_msg(&s));
  tfc_record_reader_free(r);
  tfc_status_fini(&s);
  *code = rc;
  return i;
}

static void write_file(const uint8_t *data, size_t size) {
  FILE *f = fopen(g_path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Rewrites the checksums of every record that fits (the framing of io/record.h). */
static void repair(uint8_t *f, size_t n) {
  size_t at = 0;
  while (n - at >= 12) {
    uint64_t len = 0;
    for (int i = 0; i < 8; i++) len |= (uint64_t)f[at + (size_t)i] << (8 * i);
    put_le32(f + at + 8, tfc_crc32c_mask(tfc_crc32c(f + at, 8)));
    if (len > n - at - 12 || n - at - 12 - len < 4) return;
    put_le32(f + at + 12 + len, tfc_crc32c_mask(tfc_crc32c(f + at + 12, (size_t)len)));
    at += 12 + (size_t)len + 4;
  }
}

/* gzip (windowBits 31) or zlib (15) of data, whole (malloc'd). */
static uint8_t *deflate_all(const uint8_t *data, size_t size, int gzip, size_t *out_len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, gzip ? 31 : 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
  size_t cap = deflateBound(&z, (uLong)size) + 32;
  uint8_t *out = malloc(cap);
  if (!out) abort();
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)size;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
  *out_len = cap - z.avail_out;
  deflateEnd(&z);
  return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  setup();
  int flags = data[0];
  data++;
  size--;
  uint8_t *file = malloc(size ? size : 1);
  if (!file) abort();
  if (size) memcpy(file, data, size);
  if (!(flags & 1)) repair(file, size);

  write_file(file, size);
  read_events();
  int plain_code, code;
  int plain = read_records(TFC_COMPRESSION_NONE, &plain_code);

  write_file(data, size);
  read_records(TFC_COMPRESSION_ZLIB, &code);
  read_records(TFC_COMPRESSION_GZIP, &code);

  size_t zlen;
  int gzip = (flags & 2) != 0;
  uint8_t *z = deflate_all(file, size, gzip, &zlen);
  write_file(z, zlen);
  /* The same records, and the same way of ending (a truncation error's text differs). */
  int n = read_records(gzip ? TFC_COMPRESSION_GZIP : TFC_COMPRESSION_ZLIB, &code);
  if (n != plain || (code == TFC_OUT_OF_RANGE) != (plain_code == TFC_OUT_OF_RANGE)) abort();
  free(z);
  free(file);
  return 0;
}
