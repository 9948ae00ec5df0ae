/* num.h: decimal numbers read from the environment without libc's strtol
 * family.  A traced process's start reads several (its configuration,
 * OVNI_CPUS, OVNI_NSPID, OVNI_FORKED), and strtol's code and the ctype
 * table it reads are two pages that a short process faults in for nothing
 * else.  As strtoull/strtoll in base 10: leading blanks and a sign are
 * taken, *end is after the last digit (the start when there is none), and
 * a value out of range saturates with errno = ERANGE. */
#ifndef OA_NUM_H
#define OA_NUM_H

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

static inline const char *oa_num_start(const char *s, int *neg)
{
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	*neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	return s;
}

/* The digits at s, saturated at ULLONG_MAX (*over set); *end after them. */
static inline unsigned long long oa_num_digits(const char *s, const char **end, int *over)
{
	unsigned long long v = 0;
	*over = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (ULLONG_MAX - d) / 10)
			*over = 1;
		else
			v = v * 10 + d;
	}
	*end = s;
	return *over ? ULLONG_MAX : v;
}

static inline unsigned long long oa_strtoull(const char *s, char **end)
{
	int neg, over;
	const char *p = oa_num_start(s, &neg), *e;
	unsigned long long v = oa_num_digits(p, &e, &over);
	if (end)
		*end = (char *)(e == p ? s : e);
	if (over) {
		errno = ERANGE;
		return ULLONG_MAX;
	}
	return neg ? -v : v;
}

static inline long long oa_strtoll(const char *s, char **end)
{
	int neg, over;
	const char *p = oa_num_start(s, &neg), *e;
	unsigned long long v = oa_num_digits(p, &e, &over);
	if (end)
		*end = (char *)(e == p ? s : e);
	if (over || v > (unsigned long long)LLONG_MAX + (neg ? 1u : 0u)) {
		errno = ERANGE;
		return neg ? LLONG_MIN : LLONG_MAX;
	}
	return neg ? (long long)(0 - v) : (long long)v;
}

/* A size as OVNI_BUFSIZE and ovnirun's -b give it: decimal digits (no sign,
 * no blank), then K, M or G, then B, each optional ("4M", "512K",
 * "1048576"): its bytes, or 0 when it is none (or out of range).  One
 * reading for the agent and for ovnirun, which refuses before the program
 * starts what the agent would ignore. */
static inline size_t oa_parse_size(const char *s)
{
	int over;
	const char *e;
	if (*s < '0' || *s > '9')
		return 0;
	unsigned long long v = oa_num_digits(s, &e, &over);
	unsigned shift = 0;
	switch (*e) {
	case 'k':
	case 'K':
		shift = 10;
		e++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		e++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		e++;
		break;
	}
	if (*e == 'B' || *e == 'b')
		e++;
	if (over || *e || v > (SIZE_MAX >> shift))
		return 0;
	return (size_t)(v << shift);
}

#endif
