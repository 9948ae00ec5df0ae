/* cmds.h: the list of `ovni-auto` subcommands.  Each line names a function
 * `int cmd_NAME(int argc, char **argv)` defined in tools/cmd_NAME.c (argv[0]
 * is the subcommand name) and a one-line summary for `ovni-auto --help`.
 * Add a subcommand by adding its file and one line here. */
#ifndef OA_CMDS_H
#define OA_CMDS_H

#define OA_COMMANDS(X)                                                                      \
	X(dump, "print the events of a trace or a stream, one per line")                    \
	X(check, "validate a trace against the ovni format and model rules")                \
	X(repair, "close the streams of processes killed before they could (kill -9)")      \
	X(stats, "where the time went: per thread states, marks, OpenMP states, tasks")     \
	X(upgrade, "convert a format-v1 trace into format v3")                              \
	X(export, "write a timeline for Perfetto UI / chrome://tracing (JSON or protobuf)") \
	X(sion, "list the tasks and chunks of a SIONlib container, extract one task")       \
	X(linktest, "summarise a LinkTest result file: slow links, host pairs, matrix")     \
	X(collect, "collect one trace over TCP from traced processes on several hosts")     \
	X(view, "write the trace as one HTML page: a zoomable timeline and the tables")

#define OA_DECLARE(name, summary) int cmd_##name(int argc, char **argv);
OA_COMMANDS(OA_DECLARE)
#undef OA_DECLARE

#endif
