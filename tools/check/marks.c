/* check_marks.c: mark channels: the ovni.mark.<T> metadata of every stream
 * (title, chan_type, labels) and its merge across streams, then the OM[
 * OM] OM= events (declared type, stack or single channel, value != 0, a pop
 * matches the top, depth). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/log.h"
#include "check.h"

static int parse_decimal(const char *s, long long *out)
{
	char *end;
	if (!*s || ((*s < '0' || *s > '9') && *s != '-'))
		return 0;
	*out = strtoll(s, &end, 10);
	return *end == '\0';
}

static void add_label(struct ck *c, struct ck_thread *th, long type, const char *key, json_t *lab)
{
	struct ck_marktype *mt = &c->marks[type];
	long long value;
	if (!parse_decimal(key, &value) || !json_is_string(lab)) {
		ck_problem(c, th, NULL, "meta-mark",
			   "ovni.mark.%ld.labels: bad entry '%s' (a decimal value and a string)", type, key);
		return;
	}
	const char *text = json_string_value(lab);
	uint64_t idx;
	if (ck_map_get(&mt->labels, (uint64_t)value, &idx)) {
		if (strcmp(c->labelstr[idx - 1], text))
			ck_problem(c, th, NULL, "meta-mark",
				   "mark value %lld already defined with label %s (type %ld, not %s)", value,
				   c->labelstr[idx - 1], type, text);
		return;
	}
	if (c->nlabelstr == c->caplabelstr) {
		c->caplabelstr = c->caplabelstr ? c->caplabelstr * 2 : 64;
		c->labelstr = realloc(c->labelstr, sizeof(*c->labelstr) * c->caplabelstr);
		if (!c->labelstr)
			die("out of memory");
	}
	c->labelstr[c->nlabelstr++] = text;
	if (value)
		ck_map_put(&mt->labels, (uint64_t)value, c->nlabelstr);
	/* The emulator writes Paraver's 32-bit values: two labelled values that
	 * agree in their low 32 bits stop it ("pcf_add_value: PCF value ...
	 * already in type"). */
	uint64_t other;
	uint32_t low = (uint32_t)(uint64_t)value;
	if (ck_map_get(&mt->low32, low, &other) && (long long)other != value)
		ck_problem(c, th, NULL, "meta-mark",
			   "mark values %lld and %lld (type %ld) agree in their low 32 bits, all the emulator keeps",
			   (long long)other, value, type);
	else if (value)
		ck_map_put(&mt->low32, low, (uint64_t)value);
}

void ck_marks_meta(struct ck *c, struct ck_thread *th, json_t *m)
{
	if (!m)
		return;
	if (!json_is_object(m)) {
		ck_problem(c, th, NULL, "meta-mark", "ovni.mark is not an object");
		return;
	}
	const char *key;
	json_t *v;
	json_object_foreach(m, key, v)
	{
		long long type;
		if (!parse_decimal(key, &type) || type < 0 || type >= CK_MARK_TYPES) {
			ck_problem(c, th, NULL, "meta-mark", "mark type should be in [0, %d) range: %s", CK_MARK_TYPES,
				   key);
			continue;
		}
		json_t *title = json_object_get(v, "title"), *kind = json_object_get(v, "chan_type");
		if (!json_is_string(title)) {
			ck_problem(c, th, NULL, "meta-mark", "ovni.mark.%lld: missing title (a string)", type);
			continue;
		}
		if (!json_is_string(kind) ||
		    (strcmp(json_string_value(kind), "single") && strcmp(json_string_value(kind), "stack"))) {
			ck_problem(c, th, NULL, "meta-mark",
				   "ovni.mark.%lld: chan_type must be \"single\" or \"stack\"", type);
			continue;
		}
		struct ck_marktype *mt = &c->marks[type];
		int stack = !strcmp(json_string_value(kind), "stack");
		if (!mt->declared) {
			mt->declared = 1;
			mt->stack = stack;
			mt->title = json_string_value(title);
		} else if (strcmp(mt->title, json_string_value(title))) {
			ck_problem(c, th, NULL, "meta-mark",
				   "mark with type %lld already registered with another title (%s)", type, mt->title);
		} else if (mt->stack != stack) {
			ck_problem(c, th, NULL, "meta-mark",
				   "mark with type %lld already registered with another chan_type (%s)", type,
				   mt->stack ? "stack" : "single");
		}
		json_t *labels = json_object_get(v, "labels");
		if (labels && !json_is_object(labels)) {
			ck_problem(c, th, NULL, "meta-mark", "ovni.mark.%lld.labels is not an object", type);
			continue;
		}
		const char *vk;
		json_t *lab;
		json_object_foreach(labels, vk, lab) add_label(c, th, (long)type, vk, lab);
	}
}

void ck_mark_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	if (ev->size != 12 || ev->jumbo) {
		ck_problem(c, th, ev, "mark-size", "mark event payload must be 12 bytes (i64 value, i32 type), not %u",
			   ev->size);
		return;
	}
	int64_t value = rd_i64(ev->payload);
	int32_t type = rd_i32(ev->payload + 8);
	if (type < 0 || type >= CK_MARK_TYPES || !c->marks[type].declared) {
		ck_problem(c, th, ev, "mark-type", "cannot find mark with type %d", type);
		return;
	}
	if (value == 0) {
		ck_problem(c, th, ev, "mark-zero", "mark value 0 is not allowed (type %d)", type);
		return;
	}
	struct ck_marktype *mt = &c->marks[type];
	struct ck_stack64 *st = &th->marks[type];
	char op = ev->mcv[2];
	if (op == '=') {
		if (mt->stack)
			ck_problem(c, th, ev, "mark-kind",
				   "cannot set on stack channel (mark type %d): use OM[ and OM]", type);
		return;
	}
	if (!mt->stack) {
		ck_problem(c, th, ev, "mark-kind", "cannot %s on non-stack channel (mark type %d)",
			   op == '[' ? "push" : "pop", type);
		return;
	}
	if (op == '[') {
		if (st->n >= CK_MAX_DEPTH)
			ck_problem(c, th, ev, "mark-depth", "mark stack of type %d is full (%d)", type, CK_MAX_DEPTH);
		else
			ck_push64(st, value);
		return;
	}
	if (!st->n) {
		ck_problem(c, th, ev, "mark-pop", "mark pop of value %lld (type %d) on an empty stack",
			   (long long)value, type);
		return;
	}
	if (st->v[st->n - 1] != value) {
		ck_problem(c, th, ev, "mark-pop", "mark pop of value %lld (type %d) does not match the top %lld",
			   (long long)value, type, (long long)st->v[st->n - 1]);
		return;
	}
	st->n--;
}
