/* files.h: the stream writer's file operations (files.c), for stream.c.
 * oa_stream_anchor and oa_path_at, which the agent calls too, are declared
 * in stream.h.  Paths are full paths; `dir` buffers are 4096 bytes owned by
 * the caller (a name is appended for a moment).  Async-signal-safe. */
#ifndef OA_FILES_H
#define OA_FILES_H

#include <sys/types.h>

#include "stream.h"

/* The agent's answer to "is the trace's root here still the run's trace
 * directory?" (preload/agent.c: it says so once when not); absent (NULL)
 * in the tools.  oa_mkdir_p makes no directory above a missing one where
 * it is not: -EXDEV. */
int oa_files_root_ok(void) __attribute__((weak));
int oa_mkdir_at(const char *path, mode_t mode);
int oa_open_at(const char *path, int flags, mode_t mode);
int oa_unlink_at(const char *path);
/* mkdir -p on a path buffer we own (each '/' is cut for a moment): 1 when
 * the last directory was made by this call, 0 when it was there, -errno. */
int oa_mkdir_p(char *path);
/* The directory, opened a moment before use (never kept): fd or -errno. */
int oa_open_dir(const char *path);
/* dir + "/" + name, in place; returns the old length to cut back to, or -1. */
long oa_path_in(char *dir, const char *name);
/* Open dir/name (O_CLOEXEC added); dir is left as it was. */
int oa_dir_open(char *dir, const char *name, int flags, mode_t mode);
/* Cut dir/name at len (truncate(2) by path where it can: one system call
 * and no descriptor). 0 or -errno. */
int oa_dir_truncate(char *dir, const char *name, off_t len);
/* Write all of buf (EINTR retried): 0 or -errno. */
int oa_write_all(int fd, const void *buf, size_t len);
/* fallocate(fd, 0, off, len), EINTR retried (tmpfs's stops at a pending
 * signal: a thread's trace once ended there): 0, or -1 with errno. */
int oa_fallocate(int fd, off_t off, off_t len);
/* Move from/name to to/name; across file systems copied in the kernel. */
int oa_move_file(char *from, char *to, const char *name);

#endif
