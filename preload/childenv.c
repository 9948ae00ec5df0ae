/* childenv.c: re-injection of the agent into children's environments. */
#include "../common/compiler.h"
#include "../common/str.h"
#include "childenv.h"
#include "config.h"
#include "real.h"
#include "../common/arena.h"
#include "../common/env.h"
#include "../common/log.h"
#include "../common/sys.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* The agent's file: the loader's own name for it when absolute (kept for
 * the image's life; a copy was a page written by every process), else
 * made absolute in libpath_buf.  "" when unknown. */
static const char *libpath = "";
static char libpath_buf[PATH_MAX] OA_LARGE_BSS;
static char *saved[OA_CHILDENV_EXTRA - 5]; /* "OVNI_X=value" copies */
static int nsaved;
/* The process started with verify_asan_link_order=0 in ASAN_OPTIONS
 * (ovnirun puts it there): a program built with AddressSanitizer (gcc's,
 * libasan.so) stops at its start when another object comes before its
 * runtime, as the agent does, unless told not to check.  Children keep it,
 * as they keep the agent. */
static int keep_asan OA_EARLY_DATA;

static int own_var(const char *e, enum oa_env v)
{
	return oa_env_is(e, oa_env_names[v], strlen(oa_env_names[v]));
}

OA_EARLY_TEXT size_t oa_childenv_count(char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	return n;
}

/* What a fork child runs before its exec reads no .rodata and calls no
 * libc string function: each would be a page (of ours, or a 64 KiB window
 * of libc) that the child faults in again after the fork (~2.5 us each);
 * a fork child of a shell runs this for every command. */
static char ld_preload[] OA_EARLY_DATA = "LD_PRELOAD=";
static char asan_options[] OA_EARLY_DATA = "ASAN_OPTIONS=";
static char asan_flag[] OA_EARLY_DATA = "verify_asan_link_order";
static char asan_only[] OA_EARLY_DATA = "ASAN_OPTIONS=verify_asan_link_order=0";

/* The length of s up to '=' (s has one). */
static OA_EARLY_TEXT size_t name_len(const char *s)
{
	size_t n = 0;
	while (s[n] != '=')
		n++;
	return n;
}

static OA_EARLY_TEXT const char *find(char *const envp[], const char *name, size_t len)
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (oa_env_is(envp[i], name, len))
			return envp[i] + len + 1;
	return NULL;
}

/* The loader takes the last LD_PRELOAD of an environment that has several
 * (getenv, and libasan for ASAN_OPTIONS, the first): its value, and in *at
 * its index. */
static OA_EARLY_TEXT const char *find_preload(char *const envp[], size_t *at)
{
	const char *v = NULL;
	for (size_t i = 0; envp && envp[i]; i++)
		if (oa_env_is(envp[i], ld_preload, 10)) {
			v = envp[i] + 11;
			if (at)
				*at = i;
		}
	return v;
}

/* Saved entries NAME=/abs that replace a relative NAME=... of a child's
 * environment (absolute_for_children). */
static char *abs_vars[2] OA_EARLY_DATA;
static char *abs_was[2] OA_EARLY_DATA; /* NAME=value as the process got it (relative), or NULL: unset */
static int nabs OA_EARLY_DATA;

/* NAME=dir for the children, the environment's NAME (e: relative, or
 * NULL) not being that absolute path. */
static void absolute_for_children(enum oa_env v, const char *e, const char *dir)
{
	if (dir[0] != '/' || nabs >= 2)
		return;
	char entry[4200];
	if (oa_snprintf(entry, sizeof(entry), "%s=%s", oa_env_names[v], dir) < 0)
		return;
	char *copy = oa_arena_strdup(entry);
	char *was = NULL;
	if (e && oa_snprintf(entry, sizeof(entry), "%s=%s", oa_env_names[v], e) >= 0)
		was = oa_arena_strdup(entry);
	if (!copy || (e && !was))
		return;
	oa_childenv_add(copy);
	abs_was[nabs] = was;
	abs_vars[nabs++] = copy;
}

/* The trace's directories as this process resolved them at its start
 * (oa_cfg.relative: given relative, or not at all): a relative
 * OVNI_TRACEDIR (or none: ./ovni) and OVNI_TMPDIR mean the directory of
 * the run's start, not of each child's (a script that does `cd sub;
 * ./tool`, `make -C sub`: their streams went to sub/ovni, a trace apart).
 * Out of the start's text: a run under ovnirun has its paths absolute and
 * never calls it. */
__attribute__((noinline)) static void absolute_dirs_for_children(void)
{
	const char *e = oa_env(OA_ENV_TRACEDIR);
	if (oa_cfg.relative & 1)
		absolute_for_children(OA_ENV_TRACEDIR, e, oa_cfg.tracedir);
	if (oa_cfg.relative & 2)
		absolute_for_children(OA_ENV_TMPDIR, oa_env(OA_ENV_TMPDIR), oa_cfg.tmpdir);
}

/* Is entry one of abs_vars?  Early text, as oa_childenv: every exec of
 * a process that got a relative directory (or none) asks. */
static OA_EARLY_TEXT int is_abs_var(const char *entry)
{
	for (int k = 0; k < nabs; k++)
		if (abs_vars[k] == entry)
			return 1;
	return 0;
}

/* Is env entry e (NAME=value) one that a saved absolute one replaces:
 * the relative value the process got (one the program gave its child
 * itself is its own)? */
static OA_EARLY_TEXT int replaced(const char *e)
{
	for (int k = 0; k < nabs; k++)
		if (abs_was[k] && oa_strcmp(e, abs_was[k]) == 0)
			return 1;
	return 0;
}

OA_START_TEXT void oa_childenv_init(void)
{
	libpath = "";
	nabs = 0;
	/* An absolute name is used as the loader was given it (a child loads
	 * the same file by it; no readlink of every component); a relative one
	 * is made absolute, as the child may start in another directory.  The
	 * name is our link map's (what dladdr() gives, without its search of
	 * the nearest symbol: ~4 us per process). */
	const char *self = oa_real_self_name();
	if (!self)
		;
	else if (self[0] == '/' && strlen(self) < PATH_MAX)
		libpath = self;
	else if (realpath(self, libpath_buf))
		libpath = libpath_buf;
	nsaved = 0;
	for (char **e = environ; e && *e && nsaved < (int)(sizeof(saved) / sizeof(saved[0])); e++)
		if (oa_env_prefix(*e, "OVNI_", 5) && !own_var(*e, OA_ENV_NSPID) && !own_var(*e, OA_ENV_FORKED))
			saved[nsaved++] = oa_arena_strdup(*e); /* OVNI_NSPID and OVNI_FORKED are each program's own */
	if (oa_cfg.relative)
		absolute_dirs_for_children();
	/* What the agent bound, for the children's agents (real.c: not in
	 * the program's own environment). */
	const char *bind = oa_real_bind_string();
	if (bind && nsaved < (int)(sizeof(saved) / sizeof(saved[0])))
		saved[nsaved++] = (char *)bind;
	/* The agent's own look, not getenv and strstr: libc text a short
	 * process would fault in for it (~1 page). */
	const char *asan = find(environ, asan_options, 12);
	keep_asan = asan && oa_str_has(asan, asan_flag);
}

OA_EARLY_TEXT void oa_childenv_add(char *entry)
{
	size_t len = name_len(entry);
	for (int i = 0; i < nsaved; i++) {
		if (oa_env_is(saved[i], entry, len)) {
			saved[i] = entry;
			return;
		}
	}
	if (nsaved < (int)(sizeof(saved) / sizeof(saved[0])))
		saved[nsaved++] = entry;
}

static OA_EARLY_TEXT int has_agent(const char *preload)
{
	return preload && libpath[0] && oa_str_has(preload, libpath);
}

OA_EARLY_TEXT int oa_childenv_lib_reachable(void)
{
	return libpath[0] && oa_sys3(SYS_faccessat, AT_FDCWD, (long)libpath, R_OK) == 0;
}

OA_EARLY_TEXT size_t oa_childenv_text_size(char *const envp[])
{
	const char *preload = find_preload(envp, NULL), *asan = find(envp, asan_options, 12);
	return 11 + oa_strlen(libpath) + 1 + (preload ? oa_strlen(preload) : 0) + 1 + sizeof(asan_only) +
	       (asan ? oa_strlen(asan) + 1 : 0);
}

char *const *oa_childenv_without_agent(char *const envp[], char **out, char *text)
{
	static int said;
	if (!libpath[0])
		return envp; /* not known: nothing to take out */
	if (!said) {
		said = 1;
		oa_log("the agent (%s) cannot be reached from here (a chroot, a sandbox's own file system): "
		       "the programs process %d starts run untraced",
		       libpath, (int)getpid());
	}
	size_t n = 0, ll = strlen(libpath), last = 0;
	find_preload(envp, &last);
	for (size_t i = 0; envp && envp[i]; i++) {
		/* The loader's one (the last), not the others: one buffer. */
		if (!ll || i != last || !oa_env_prefix(envp[i], ld_preload, 11)) {
			out[n++] = envp[i];
			continue;
		}
		/* The list without our entries (separated by ':' or ' ', as
		 * the loader reads it). */
		char *p = stpcpy(text, ld_preload);
		const char *v = envp[i] + 11;
		int any = 0;
		while (*v) {
			size_t k = strcspn(v, ": ");
			if (k && !(k == ll && !memcmp(v, libpath, ll))) {
				if (any)
					*p++ = ':';
				memcpy(p, v, k);
				p += k;
				any = 1;
			}
			v += k;
			if (*v)
				v++;
		}
		*p = '\0';
		if (any)
			out[n++] = text;
	}
	out[n] = NULL;
	return out;
}

char *const *oa_childenv_sealed(char *const envp[], char **out)
{
	static char off[] = "OVNI_DISABLE=1";
	size_t n = 0;
	for (size_t i = 0; envp && envp[i]; i++)
		if (!oa_env_prefix(envp[i], off, 13))
			out[n++] = envp[i];
	out[n++] = off;
	out[n] = NULL;
	return out;
}

OA_EARLY_TEXT char *const *oa_childenv(char *const envp[], char **out, char *text, char *own, char *own2)
{
	if (!libpath[0])
		return envp;
	if (!own) {
		own = own2;
		own2 = NULL;
	}
	size_t last = 0;
	const char *preload = find_preload(envp, &last);
	const char *asan = keep_asan ? find(envp, asan_options, 12) : NULL;
	/* An ASAN_OPTIONS of the program's own without the flag: the flag is
	 * added to it; none at all: the flag alone. */
	int fix_asan = keep_asan && (!asan || !oa_str_has(asan, asan_flag));
	int missing = !has_agent(preload) || own || fix_asan;
	size_t ownlen = own ? name_len(own) : 0;
	size_t own2len = own2 ? name_len(own2) : 0;
	for (int i = 0; !missing && i < nsaved; i++) {
		size_t len = name_len(saved[i]);
		if (!find(envp, saved[i], len))
			missing = 1;
	}
	for (size_t i = 0; !missing && nabs && envp && envp[i]; i++)
		missing = replaced(envp[i]);
	if (!missing)
		return envp;

	size_t n = 0;
	for (size_t i = 0; envp && envp[i]; i++) {
		if (preload && i == last && !has_agent(preload))
			continue; /* replaced below, last (the loader's); any other stays */
		if (own && oa_env_prefix(envp[i], own, ownlen + 1))
			continue; /* the caller's, below */
		if (own2 && oa_env_prefix(envp[i], own2, own2len + 1))
			continue;
		if (fix_asan && oa_env_prefix(envp[i], asan_options, 13))
			continue; /* below */
		if (nabs && replaced(envp[i]))
			continue; /* the absolute one, below */
		out[n++] = envp[i];
	}
	/* text holds oa_childenv_text_size(envp) bytes: all of it fits. */
	if (!has_agent(preload)) {
		char *p = oa_stpcpy(oa_stpcpy(text, ld_preload), libpath);
		if (preload && *preload) {
			*p++ = ':';
			p = oa_stpcpy(p, preload);
		}
		out[n++] = text;
		text = p + 1;
	}
	if (fix_asan && asan && *asan) {
		char *p = oa_stpcpy(oa_stpcpy(text, asan_options), asan);
		*p++ = ':';
		oa_stpcpy(p, asan_only + 13);
		out[n++] = text;
	} else if (fix_asan) {
		out[n++] = asan_only;
	}
	for (int i = 0; i < nsaved; i++) {
		size_t len = name_len(saved[i]);
		const char *v = find(envp, saved[i], len);
		if (!v || (nabs && is_abs_var(saved[i]) && replaced(v - len - 1)))
			out[n++] = saved[i];
	}
	if (own)
		out[n++] = own;
	if (own2)
		out[n++] = own2;
	out[n] = NULL;
	return out;
}
