/*
 * file — a whole file read into memory, for the readers of small files (SavedModel and
 * MetaGraph protos, PEM certificates, assets being copied).
 *
 * Ownership: *out is the caller's (free); it holds *out_len bytes and a NUL after them, so a
 * text file reads as a C string. Thread-safe.
 */
#ifndef TFC_IO_FILE_H
#define TFC_IO_FILE_H

#include <stddef.h>

/* The bytes of `path`: 0, or -1 when it cannot be opened (errno says why), -2 out of memory,
 * -3 a read error (errno as the read left it). */
int tfc_file_read_all(const char *path, char **out, size_t *out_len);

#endif
