/*
 * events — TensorBoard event files: writing them as TF's EventsWriter and Python's FileWriter
 * do, and reading them back record by record.
 *
 * A writer owns one file, <logdir>/events.out.tfevents.<seconds, %010lld>.<hostname><suffix>
 * (TF's events_writer.cc name with Python FileWriter's "events" prefix). Creating it creates
 * logdir as `mkdir -p` does, then writes the first record, Event{wall_time = the whole
 * seconds of the name, file_version = "brain.Event:2"}, and flushes it at once, so a reader
 * sees a valid file from the start. Every later record is one Event with wall_time = now
 * (seconds as a double) and the given step, framed as a TFRecord (io/record.h: length, masked
 * CRC-32C of the length, data, masked CRC-32C of the data). Writes are buffered; flush hands
 * them to the OS; close flushes and closes.
 *
 * Summaries are checked (a Summary proto that does not parse is INVALID_ARGUMENT) and, as
 * Python's FileWriter.add_summary does, a value's SummaryMetadata is kept only the first time
 * its tag is seen: TensorBoard reads the plugin metadata from the first occurrence.
 *
 * A reader walks a file's records in order and decodes each Event; it reads files written by
 * TF, TensorBoard or this writer.
 *
 * Errors: TF's file errors naming the path ("<path>; Permission denied", code from errno);
 * writing after close is FAILED_PRECONDITION; a record that fails its CRC is DATA_LOSS naming
 * file and offset; a record that is not an Event is DATA_LOSS naming file and offset.
 *
 * Ownership: the writer and reader own their files; tfc_event_reader_next hands out Events the
 * caller frees. Thread-safety: a writer may be used from several threads at once (a mutex
 * orders the records); a reader by one thread at a time.
 */
#ifndef TFC_IO_EVENTS_H
#define TFC_IO_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "tensorflow/event.pb-c.h"

/* "brain.Event:2": TF's kVersionPrefix + kCurrentVersion. */
#define TFC_EVENTS_FILE_VERSION "brain.Event:2"

typedef struct tfc_event_writer tfc_event_writer;

/* Creates logdir (and its parents) and the event file; writes and flushes the first event.
 * suffix (NULL or "") is appended to the file name, as FileWriter's filename_suffix. Returns a
 * writer the caller frees with tfc_event_writer_free, or NULL with status: INVALID_ARGUMENT for
 * an empty logdir; TF's file errors naming the directory or file that could not be made. */
tfc_event_writer *tfc_event_writer_new(const char *logdir, const char *suffix, tfc_status *s);
/* The file's path (owned by the writer, valid until it is freed). */
const char *tfc_event_writer_path(const tfc_event_writer *w);
/* Writes e after setting its wall_time to now (e is borrowed; its other fields are kept). */
int tfc_event_writer_write(tfc_event_writer *w, Tensorflow__Event *e, tfc_status *s);
/* An Event{step, summary} from a serialized Summary (what a summary op outputs). */
int tfc_event_writer_add_summary(tfc_event_writer *w, const void *summary, size_t len, int64_t step,
                                 tfc_status *s);
/* Appends the serialized Event `event` as it is (its wall_time and step included), as Python's
 * FileWriter.add_event writes; bytes that are not an Event are INVALID_ARGUMENT ("Unparseable
 * Event", as tfc_pb_unpack says it). */
int tfc_event_writer_add_event(tfc_event_writer *w, const void *event, size_t len, tfc_status *s);
/* An Event{graph_def} holding serialized GraphDef bytes (step 0, as Python writes it). */
int tfc_event_writer_add_graph_def(tfc_event_writer *w, const void *graph_def, size_t len, tfc_status *s);
/* An Event{step, session_log{status, checkpoint_path}}; status is SessionLog's enum (START 1,
 * STOP 2, CHECKPOINT 3; else INVALID_ARGUMENT). checkpoint_path may be NULL. */
int tfc_event_writer_add_session_log(tfc_event_writer *w, int status, const char *checkpoint_path,
                                     int64_t step, tfc_status *s);
/* Hands buffered records to the OS. */
int tfc_event_writer_flush(tfc_event_writer *w, tfc_status *s);
/* Flushes and closes the file; later writes fail with FAILED_PRECONDITION. Idempotent. */
int tfc_event_writer_close(tfc_event_writer *w, tfc_status *s);
/* Closes (errors dropped) and frees. NULL: no-op. */
void tfc_event_writer_free(tfc_event_writer *w);

/* Seconds since the epoch as a double (an Event's wall_time). */
double tfc_events_wall_time(void);

typedef struct tfc_event_reader tfc_event_reader;

/* Opens an event file (uncompressed TFRecords). NULL with TF's file error naming it. */
tfc_event_reader *tfc_event_reader_open(const char *path, tfc_status *s);
/* The next Event in *out (caller frees with tensorflow__event__free_unpacked(*out, NULL)).
 * Returns OK; OUT_OF_RANGE "End of file" after the last record; DATA_LOSS for a corrupt
 * record or one that is not an Event (naming file and offset). */
int tfc_event_reader_next(tfc_event_reader *r, Tensorflow__Event **out, tfc_status *s);
void tfc_event_reader_free(tfc_event_reader *r); /* NULL: no-op */

#endif
