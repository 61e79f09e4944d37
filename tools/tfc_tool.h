/*
 * tfc_tool — the subcommands of the tfc tool that live in files of their own.
 */
#ifndef TFC_TOOLS_TFC_TOOL_H
#define TFC_TOOLS_TFC_TOOL_H

/* tfc data <dataset> --out DIR ...: argv[0] is the dataset. Returns the exit code (0, 1 on a
 * failure with a message on stderr, 2 on bad usage). */
int tfc_tool_data(int argc, char **argv);
/* tfc server --cluster SPEC --job NAME [--task N] [--port P] [--cpus N] | --def FILE: one task
 * of a cluster in the foreground until SIGTERM/SIGINT (tfc_server.c). argv[0] is the first
 * flag. Returns the exit code (0 after a clean stop, 1 on a server error, 2 on bad usage). */
int tfc_tool_server(int argc, char **argv);

#endif
