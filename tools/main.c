/* main.c: `ovni-auto <subcommand>` dispatch.  Subcommands live one per file
 * (tools/cmd_*.c) and are listed in cmds.h. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "version.h"
#include "../common/log.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

#define OA_ENTRY(name, summary) { #name, cmd_##name, summary },
static const struct command commands[] = { OA_COMMANDS(OA_ENTRY){ NULL, NULL, NULL } };
#undef OA_ENTRY

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ovni-auto <command> [options] [args]\n\n"
		"Tools for ovni traces made by libovni-auto (see also ovnirun).\n\n"
		"commands:\n");
	for (size_t i = 0; commands[i].name; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n`ovni-auto <command> --help` describes one command; the manual has a page for\n"
		"each: man ovni-auto-<command> (docs/ovni-auto-<command>.1.md in the source).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("ovni-auto %s (%s)\n", OA_VERSION, OA_COMMIT);
		return 0;
	}
	for (size_t i = 0; commands[i].name; i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			static char prog[64];
			snprintf(prog, sizeof(prog), "ovni-auto %s", commands[i].name);
			oa_progname = prog;
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "ovni-auto: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
