/*
 * attr_codec — AttrValue (attr_value.proto) to and from tfc_attr_value.
 *
 * Every kind maps one to one: s, i, f, b, type, shape (unknown_rank kept), tensor,
 * placeholder, func (NameAttrList with nested attrs) and list. A list's element kind is the
 * one non-empty field of ListValue; an empty `list {}` decodes to a LIST of kind NONE (the
 * op def fixes the kind later, as in TF), and a list with two non-empty fields is
 * INVALID_ARGUMENT. An AttrValue with nothing set decodes to kind NONE, which node
 * validation rejects for op attrs.
 *
 * Ownership: decoded values own everything (tfc_attr_value_fini). Encoding builds into an
 * arena and borrows tensor contents from the value.
 */
#ifndef TFC_PROTO_ATTR_CODEC_H
#define TFC_PROTO_ATTR_CODEC_H

#include "ops/attr.h"
#include "proto/pb_util.h"
#include "tensorflow/attr_value.pb-c.h"

int tfc_attr_from_proto(const Tensorflow__AttrValue *p, tfc_attr_value *out, tfc_status *s);
int tfc_attr_from_proto_bytes(const void *data, size_t len, tfc_attr_value *out, tfc_status *s);
int tfc_attr_to_proto(const tfc_attr_value *v, tfc_pb_arena *a, Tensorflow__AttrValue *out,
                      tfc_status *s);
int tfc_attr_to_proto_bytes(const tfc_attr_value *v, void **out, size_t *out_len, tfc_status *s);

/* A map<string, AttrValue> (NodeDef.attr, NameAttrList.attr) as a sorted attr array. The
 * entries are the protobuf-c map entry structs; duplicates: the last one wins. */
int tfc_attrs_from_proto_map(void *const *entries, size_t n, tfc_attr **out, int *n_out,
                             tfc_status *s);

#endif
