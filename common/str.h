/* str.h: the few string functions a fork child of a shell runs before its
 * exec, as loops of ours (header only).
 *
 * A fork child maps libc's text anew, and a shell's child of an untraced
 * run touches only the windows of fork and of the signal mask: libc's
 * string functions are one more 64 KiB window (a page fault, 10-25 us on
 * this project's VM) for every command.  The files that use these are
 * built with -fno-tree-loop-distribute-patterns (Makefile), or GCC would
 * turn the loops back into calls of strlen and memcpy. */
#ifndef OA_STR_H
#define OA_STR_H

#include <stddef.h>

static inline size_t oa_strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static inline void oa_memcpy(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;
	while (n--)
		*d++ = *s++;
}

/* Copies src with its '\0'; returns the end of dst (its '\0'). */
static inline char *oa_stpcpy(char *dst, const char *src)
{
	while ((*dst = *src++))
		dst++;
	return dst;
}

static inline int oa_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

static inline const char *oa_strchr(const char *s, char c)
{
	for (; *s; s++)
		if (*s == c)
			return s;
	return c ? NULL : s;
}

static inline const char *oa_strrchr(const char *s, char c)
{
	const char *last = NULL;
	for (;; s++) {
		if (*s == c)
			last = s;
		if (!*s)
			return last;
	}
}

#endif
