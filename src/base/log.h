/*
 * log — where the Print op's lines go: to the listeners registered with
 * TF_RegisterLogListener (include/tensorflow/c/c_api.h) when there are any, else to stderr,
 * as TF's Print kernel does.
 *
 * Listeners are never removed (TF has no unregister either). Thread-safe: registration and
 * printing may race; a line goes to the listeners registered when it is printed.
 */
#ifndef TFC_BASE_LOG_H
#define TFC_BASE_LOG_H

typedef void (*tfc_log_listener)(const char *line);

/* Adds a listener (NULL is ignored). Returns 0, or -1 on out of memory. */
int tfc_log_add_listener(tfc_log_listener fn);
/* Hands line (without its newline) to every listener, or writes it and a newline to stderr
 * when there is none. */
void tfc_log_print(const char *line);

#endif
