/* jsoncheck.c: validates a Chrome trace-event JSON file written by
 * `ovni-auto export`: it must parse, B/E slices must nest on every (pid,
 * tid), every flow end must follow a start with its id. Prints counts: "events N", "B N", "E N", "s N",
 * "f N", "C N", "M N", then "name NAME" for each distinct slice name. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	json_error_t e;
	json_t *root = argc == 2 ? json_load_file(argv[1], 0, &e) : NULL;
	if (!root) {
		fprintf(stderr, "jsoncheck: does not parse: line %d: %s\n", e.line, e.text);
		return 1;
	}
	json_t *evs = json_object_get(root, "traceEvents");
	if (!json_is_array(evs)) {
		fprintf(stderr, "jsoncheck: no traceEvents array\n");
		return 1;
	}
	long count[128] = { 0 };
	/* Open slice depth per (pid, tid), in a small table. */
	long long keys[65536];
	int depth[65536], nkeys = 0, bad = 0;
	const char *names[4096];
	static json_int_t flows[65536];
	int nflows = 0;
	int nnames = 0;
	size_t i;
	json_t *ev;
	double last_ts = -1;
	json_array_foreach(evs, i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		if (!ph) {
			fprintf(stderr, "jsoncheck: event %zu has no ph\n", i);
			return 1;
		}
		count[(unsigned char)ph[0] & 127]++;
		if (ph[0] == 's' || ph[0] == 'f') {
			json_int_t id = json_integer_value(json_object_get(ev, "id"));
			int j;
			for (j = 0; j < nflows && flows[j] != id; j++)
				;
			if (ph[0] == 's' && j == nflows && nflows < 65536)
				flows[nflows++] = id;
			if (ph[0] == 'f' && j == nflows) {
				fprintf(stderr, "jsoncheck: flow end %lld without a start\n", (long long)id);
				return 1;
			}
			continue;
		}
		if (ph[0] != 'B' && ph[0] != 'E')
			continue;
		double ts = json_number_value(json_object_get(ev, "ts"));
		if (ts < last_ts - 1e-9)
			bad++; /* written in time order */
		last_ts = ts;
		long long key = json_integer_value(json_object_get(ev, "pid")) << 32 |
				json_integer_value(json_object_get(ev, "tid"));
		int k;
		for (k = 0; k < nkeys && keys[k] != key; k++)
			;
		if (k == nkeys && nkeys < 65536) {
			keys[nkeys] = key;
			depth[nkeys++] = 0;
		}
		if (ph[0] == 'B') {
			depth[k]++;
			const char *name = json_string_value(json_object_get(ev, "name"));
			int j;
			for (j = 0; j < nnames && strcmp(names[j], name); j++)
				;
			if (j == nnames && nnames < 4096)
				names[nnames++] = name;
		} else if (--depth[k] < 0) {
			fprintf(stderr, "jsoncheck: E without B on pid/tid %llx at ts %f\n", key, ts);
			return 1;
		}
	}
	for (int k = 0; k < nkeys; k++)
		if (depth[k]) {
			fprintf(stderr, "jsoncheck: %d slices left open on %llx\n", depth[k], keys[k]);
			return 1;
		}
	if (bad) {
		fprintf(stderr, "jsoncheck: %d slices out of time order\n", bad);
		return 1;
	}
	printf("events %zu\n", json_array_size(evs));
	const char *phs = "BEsfCM";
	for (const char *p = phs; *p; p++)
		printf("%c %ld\n", *p, count[(int)*p]);
	for (int j = 0; j < nnames; j++)
		printf("name %s\n", names[j]);
	return 0;
}
