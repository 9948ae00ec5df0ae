/* ovnirun_omp.h: the OpenMP part of ovnirun's environment for the program:
 * OMP_TOOL_LIBRARIES, and running programs linked to GCC's libgomp (which
 * has no OMPT interface) on LLVM libomp. */
#ifndef OA_OVNIRUN_OMP_H
#define OA_OVNIRUN_OMP_H

/* Called in the child before exec, after LD_PRELOAD names agent_lib.
 * Says (unless quiet) that a program using libovni gets its calls merged.
 * Sets OMP_TOOL_LIBRARIES (agent_lib first).  When `prog` (or a library it
 * needs) needs libgomp.so.1: with allow_swap and an LLVM libomp.so.5
 * installed ($OVNI_LIBOMP, else the usual directories), appends it to
 * LD_PRELOAD so that the GOMP_* entry points bind to libomp; says what it
 * did on stderr unless quiet.  Programs that import omp_fulfill_event keep
 * libgomp (libomp 14 does not export that symbol version).  Returns 1 when it swapped, 0 otherwise. */
int omp_setup_env(const char *prog, const char *agent_lib, int allow_swap, int quiet);

/* Nonzero when the ELF program `path`, or a shared library it needs, needs
 * libgomp.so.1 (scripts and unreadable files: 0). *uses_detach (when not
 * NULL) tells whether one of the objects read imports omp_fulfill_event,
 * *uses_libovni whether one needs libovni.so (when libgomp was not found
 * first). */
int omp_needs_libgomp(const char *path, int *uses_detach, int *uses_libovni);

#endif
