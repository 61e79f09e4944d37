/*
 * pb_text — protobuf text format for any protobuf-c message, by its descriptor: the writer
 * gives what TF's DebugString gives (TF_GraphDebugString), the reader takes the text TF's
 * text parser takes for the messages tfc reads as text (TF_ApiDefMapPut's ApiDefs).
 *
 * Writer: fields in field-number order, set fields only (proto3 scalars when not zero or
 * empty, proto2 optionals when present, oneof members when chosen, every repeated element,
 * map entries as their key/value messages); "name: value" lines, nested messages as
 * "name {" ... "}" indented by two spaces; strings and bytes in double quotes with C escapes
 * (octal for other unprintable bytes and every byte >= 0x80), enums by value name, floats in
 * the shortest of %.6g / %.9g that reads back (doubles %.15g / %.17g), inf/-inf/nan.
 *
 * Reader: "name: value" and "name { ... }" / "name < ... >" / "name: { ... }" fields,
 * separated by whitespace, ',' or ';'; '#' comments; strings in single or double quotes
 * with C escapes, adjacent strings concatenated; enums by name or number; true/false/1/0;
 * repeated fields by repetition or [a, b] lists. Unknown fields and bad values are
 * INVALID_ARGUMENT in TF's parser's words, "<line>(<column>): <message>\n" (1-based, at the
 * token where parsing stopped): 'Message type "tensorflow.ApiDef" has no field named "x".',
 * 'Expected string, got: 3', 'Unknown enumeration value of "X" for field "visibility".'.
 *
 * Ownership: the writer appends to the caller's strbuf; the reader returns a message the
 * caller frees with protobuf_c_message_free_unpacked(msg, NULL). Thread-safe (no state).
 */
#ifndef TFC_PROTO_PB_TEXT_H
#define TFC_PROTO_PB_TEXT_H

#include <protobuf-c/protobuf-c.h>

#include "base/status.h"
#include "base/strbuf.h"

void tfc_pb_text_write(const ProtobufCMessage *m, tfc_strbuf *out);
/* Parses text[0, len) as desc's message; NULL with INVALID_ARGUMENT on an error. */
ProtobufCMessage *tfc_pb_text_read(const ProtobufCMessageDescriptor *desc, const char *text, size_t len,
                                   tfc_status *s);

#endif
