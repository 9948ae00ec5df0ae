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
 * did on stderr unless quiet.  The program keeps libgomp when it imports
 * from libgomp a name@version that libomp does not define (libomp 14 has
 * no omp_fulfill_event@OMP_5.0.1, no GOMP_teams4), or when an OpenMP
 * variable has a value that libgomp ignores and libomp reads otherwise
 * (OMP_NUM_THREADS=abc).  Returns 1 when it swapped, 0 otherwise. */
int omp_setup_env(const char *prog, const char *agent_lib, int allow_swap, int quiet);

#endif
