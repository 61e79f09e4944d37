/*
 * function_codec — FunctionDef and FunctionDefLibrary at the edge: validation and the
 * canonical bytes a graph's function library keeps (graph/function.h), FunctionDef.attr access
 * for the C API, and GraphDef.library import and export.
 *
 * Canonical form: the FunctionDef re-serialized with every map's entries (attr, arg_attr and
 * its attrs, ret, control_ret, each node_def's attr) sorted by key, as TF's deterministic
 * serialization writes them, so equal definitions have equal bytes.
 *
 * Ownership: outputs are malloc'd and owned by the caller. Errors: INVALID_ARGUMENT naming
 * the message at fault; RESOURCE_EXHAUSTED on out of memory.
 */
#ifndef TFC_PROTO_FUNCTION_CODEC_H
#define TFC_PROTO_FUNCTION_CODEC_H

#include <stddef.h>

#include "base/status.h"
#include "base/strbuf.h"
#include "graph/function.h"
#include "tensorflow/function.pb-c.h"

/* Parses FunctionDef bytes; on success *out and *out_len hold the canonical bytes and *name the
 * signature's name (both malloc'd). A parse failure is INVALID_ARGUMENT with `what` as the
 * message; a FunctionDef without a signature name is INVALID_ARGUMENT too. */
int tfc_functiondef_canonical(const void *data, size_t len, const char *what, void **out, size_t *out_len,
                              char **name, tfc_status *s);
/* The canonical form of an unpacked FunctionDef (sorts its maps in place). */
int tfc_functiondef_pack(Tensorflow__FunctionDef *fd, void **out, size_t *out_len, tfc_status *s);

/* FunctionDef.attr[attr_name] as AttrValue bytes; INVALID_ARGUMENT "Function '<f>' has no
 * attr named '<a>'." when absent. `def` must be canonical bytes. */
int tfc_functiondef_get_attr(const void *def, size_t len, const char *attr_name, void **out, size_t *out_len,
                             tfc_status *s);
/* New canonical bytes with FunctionDef.attr[attr_name] set to the AttrValue in `value`
 * (INVALID_ARGUMENT "Unparseable <what>" when it does not parse). */
int tfc_functiondef_set_attr(const void *def, size_t len, const char *attr_name, const void *value,
                             size_t value_len, const char *what, void **out, size_t *out_len, tfc_status *s);

/* Adds a decoded GraphDef.library to lib (functions, then gradients) under TF's rules; on
 * error lib may hold part of it: callers roll back with a tfc_funclib_mark. */
int tfc_funclib_import(tfc_funclib *lib, const Tensorflow__FunctionDefLibrary *fl, tfc_status *s);
/* Serializes lib as FunctionDefLibrary bytes (function 1, gradient 2); *out_len 0 and *out
 * NULL for an empty library. */
int tfc_funclib_export(const tfc_funclib *lib, void **out, size_t *out_len, tfc_status *s);

/* Appends TF's text of the FunctionDef in (def, len) (TF_FunctionDebugString; see
 * function_text.c). INVALID_ARGUMENT when the bytes do not parse. */
int tfc_functiondef_debug_string(const void *def, size_t len, tfc_strbuf *out, tfc_status *s);

#endif
