/* libFuzzer harness: TensorBoard event files (io/events.h) and the TFRecord framing under them
 * (io/record.h), uncompressed and in its ZLIB and GZIP streams.
 *
 * Input: the file's bytes, written to a temporary file. The harness reads every Event with
 * tfc_event_reader_next until it reports the end or an error, then reads the same bytes as
 * ZLIB- and GZIP-compressed TFRecord files record by record (the readers of
 * TFRecordDataset and tf_record_iterator).
 *
 * Checks beyond "no crash, no leak, no hang": a reader ends with OUT_OF_RANGE or fails with a
 * status and a message; after a failure it stays at the record at fault (a retry fails the
 * same way, as record.h promises), and records' offsets only grow.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void read_records(tfc_compression c) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_reader *r = tfc_record_reader_open(g_path, c, &s);
  if (!r) abort();
  int rc;
  uint64_t last = 0;
  for (int i = 0;; i++) {
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
  if (getenv("TFC_FUZZ_DEBUG")) fprintf(stderr, "records (%d): %s\n", (int)c, tfc_status_msg(&s));
  tfc_record_reader_free(r);
  tfc_status_fini(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  FILE *f = fopen(g_path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
  read_events();
  read_records(TFC_COMPRESSION_ZLIB);
  read_records(TFC_COMPRESSION_GZIP);
  return 0;
}
