/* handover.c: see handover.h. */
#include "../common/num.h"
#include "../common/str.h"
#include "handover.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../common/compiler.h"
#include "../common/env.h"
#include "../common/log.h"
#include "../common/sys.h"
#include "config.h"

#if defined(__x86_64__)
#define OUR_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OUR_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define OUR_MACHINE EM_PPC64
#elif defined(__riscv)
#define OUR_MACHINE EM_RISCV
#else
#define OUR_MACHINE EM_NONE /* no handover: every exec'ing child starts first */
#endif

/* A fork child runs this before its exec: system calls made directly
 * and strings in .data, no libc string function (childenv.c says why). */
static char ld_linux[] OA_EARLY_DATA = "/ld-linux", ld64[] OA_EARLY_DATA = "/ld64.so";
static char capability[] OA_EARLY_DATA = "security.capability";
static char default_path[] OA_EARLY_DATA = "/bin:/usr/bin";

static OA_EARLY_TEXT ssize_t pread_at(int fd, void *buf, size_t n, uint64_t off)
{
	long r;
	while ((r = oa_sys4(SYS_pread64, fd, (long)buf, (long)n, (long)off)) == -EINTR)
		;
	return r;
}

/* A dynamic ELF of our class and machine whose interpreter is glibc's
 * loader (it honours LD_PRELOAD); b holds the file's first n bytes. */
static OA_EARLY_TEXT int our_dynamic_elf(int fd, const unsigned char *b, size_t n)
{
	Elf64_Ehdr eh;
	if (n < sizeof(eh) || b[0] != ELFMAG0 || b[1] != ELFMAG1 || b[2] != ELFMAG2 || b[3] != ELFMAG3 ||
	    b[EI_CLASS] != ELFCLASS64 || OUR_MACHINE == EM_NONE)
		return 0;
	memcpy(&eh, b, sizeof(eh));
	if (eh.e_machine != OUR_MACHINE || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 64)
		return 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		uint64_t off = eh.e_phoff + (uint64_t)i * sizeof(ph);
		if (off + sizeof(ph) <= n)
			memcpy(&ph, b + off, sizeof(ph));
		else if (pread_at(fd, &ph, sizeof(ph), off) != (ssize_t)sizeof(ph))
			return 0;
		if (ph.p_type != PT_INTERP)
			continue;
		char interp[128];
		if (ph.p_filesz == 0 || ph.p_filesz >= sizeof(interp))
			return 0;
		if (ph.p_offset + ph.p_filesz <= n)
			oa_memcpy(interp, b + ph.p_offset, ph.p_filesz);
		else if (pread_at(fd, interp, ph.p_filesz, ph.p_offset) != (ssize_t)ph.p_filesz)
			return 0;
		interp[ph.p_filesz] = '\0';
		return oa_str_has(interp, ld_linux) || oa_str_has(interp, ld64);
	}
	return 0; /* static: LD_PRELOAD means nothing to it */
}

/* The interpreter of a "#!" script (b, n bytes), into out. */
static OA_EARLY_TEXT int script_interp(const unsigned char *b, size_t n, char *out, size_t cap)
{
	size_t i = 2;
	while (i < n && (b[i] == ' ' || b[i] == '\t'))
		i++;
	size_t j = i;
	while (j < n && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\0')
		j++;
	if (j == i || j == n || j - i >= cap || b[i] != '/')
		return 0;
	oa_memcpy(out, b + i, j - i);
	out[j - i] = '\0';
	return 1;
}

static OA_EARLY_TEXT int loads_agent(const char *path, int depth)
{
	int fd = (int)oa_sys4(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	int ok = 0;
	struct stat st;
	unsigned char b[1024];
#ifdef SYS_fstat
	int stat_ok = oa_sys3(SYS_fstat, fd, (long)&st, 0) == 0;
#else
	int stat_ok = fstat(fd, &st) == 0; /* an architecture with no fstat call (loongarch64) */
#endif
	if (stat_ok && S_ISREG(st.st_mode) && !(st.st_mode & (S_ISUID | S_ISGID))) {
		ssize_t n = pread_at(fd, b, sizeof(b), 0);
		char interp[256];
		if (n >= 4 && b[0] == '#' && b[1] == '!')
			ok = depth < 2 && script_interp(b, (size_t)n, interp, sizeof(interp)) &&
			     loads_agent(interp, depth + 1);
		else if (n > 0)
			ok = our_dynamic_elf(fd, b, (size_t)n);
		/* File capabilities make the loader ignore LD_PRELOAD too. */
		if (ok) {
			long r = oa_sys4(SYS_fgetxattr, fd, (long)capability, 0, 0);
			if (r >= 0 || r == -ERANGE)
				ok = 0;
		}
	}
	oa_sys3(SYS_close, fd, 0, 0);
	return ok;
}

/* What execvp() runs for a name without '/': the first PATH entry (the
 * caller's PATH, as glibc takes it; its default when unset) where it is
 * an executable file, into buf. */
static OA_EARLY_TEXT int search_path(const char *name, char *buf, size_t cap)
{
	static char path_name[] OA_EARLY_DATA = "PATH";
	const char *p = oa_getenv(path_name);
	if (!p)
		p = default_path;
	size_t nl = oa_strlen(name);
	while (*p) {
		size_t dl = 0;
		while (p[dl] && p[dl] != ':')
			dl++;
		const char *e = p[dl] ? p + dl : NULL;
		if (dl == 0) {
			if (nl + 1 > cap)
				return 0;
			oa_memcpy(buf, name, nl + 1); /* an empty entry: the current directory */
		} else {
			if (dl + 1 + nl + 1 > cap)
				return 0;
			oa_memcpy(buf, p, dl);
			buf[dl] = '/';
			oa_memcpy(buf + dl + 1, name, nl + 1);
		}
		long r = oa_sys4(SYS_faccessat2, AT_FDCWD, (long)buf, X_OK, AT_EACCESS);
		if (r == -ENOSYS || r == -EPERM) /* a kernel before 5.8, or a filter that refuses it: libc's */
			r = faccessat(AT_FDCWD, buf, X_OK, AT_EACCESS) == 0 ? 0 : -1;
		if (r == 0)
			return 1; /* (a directory: loads_agent says no, and the exec starts the child first) */
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

OA_EARLY_TEXT int oa_handover_target_traced(const char *path, char *const argv[], char *const envp[])
{
	if (!path || !*path || oa_strlen(path) > OA_HANDOVER_PATH)
		return 0;
	char found[OA_HANDOVER_PATH + 256];
	if (!oa_strchr(path, '/')) {
		if (!search_path(path, found, sizeof(found)))
			return 0;
		path = found;
	}
	/* The name the new image will judge itself by (program_invocation_short_name). */
	const char *name = argv && argv[0] ? argv[0] : path;
	const char *slash = oa_strrchr(name, '/');
	if (!oa_config_trace_child(slash ? slash + 1 : name))
		return 0;
	/* A program that disables the agent for this child (OVNI_DISABLE;
	 * the name in .data, as every string a fork child reads here: our
	 * .rodata would be a page it faults in for it). */
	static char dis[] OA_EARLY_DATA = "OVNI_DISABLE";
	for (size_t i = 0; envp && envp[i]; i++)
		if (oa_env_is(envp[i], dis, sizeof(dis) - 1))
			return 0;
	return loads_agent(path, 0);
}

OA_EARLY_TEXT int oa_handover_format(char *buf, size_t len, int pid, int ppid, int parent_tid, uint64_t t_fork,
				     uint64_t t_exec, const char *path)
{
	static char fmt[] OA_EARLY_DATA = "OVNI_FORKED=%d:%d:%d:%llu:%llu:%s";
	int n = oa_snprintf(buf, len, fmt, pid, ppid, parent_tid, (unsigned long long)t_fork,
			    (unsigned long long)t_exec, path);
	return n > 0 && (size_t)n < len;
}

OA_START_TEXT int oa_handover_parse(const char *v, struct oa_handover *h)
{
	long long x[5];
	char *end;
	for (int i = 0; i < 5; i++) {
		errno = 0;
		x[i] = i >= 3 ? (long long)oa_strtoull(v, &end) : oa_strtoll(v, &end);
		if (end == v || *end != ':' || errno)
			return -1;
		v = end + 1;
	}
	size_t pl = strlen(v);
	if (x[0] <= 0 || x[1] <= 0 || pl == 0 || pl > OA_HANDOVER_PATH)
		return -1;
	h->pid = (int)x[0];
	h->ppid = (int)x[1];
	h->parent_tid = (int)x[2];
	h->t_fork = (uint64_t)x[3];
	h->t_exec = (uint64_t)x[4];
	memcpy(h->path, v, pl + 1);
	return 0;
}
