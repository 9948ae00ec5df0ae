/* html.c: the page of `ovni-auto view`: one HTML file with its style, its
 * script (viewer.css and viewer.js, built in as view_assets.h) and the
 * data: a JSON document (names, states, processes, rows, marks, summary
 * sums) and the intervals, varint-packed and base64-encoded: for each row,
 * an overview (buckets of about 1/2048 of the trace) and then the intervals
 * at the finest resolution that fits the byte budget. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/log.h"
#include "view.h"
#include "view_assets.h"

struct bytes {
	uint8_t *b;
	size_t n, cap;
};

static void grow(struct bytes *o, size_t more)
{
	if (o->n + more <= o->cap)
		return;
	o->cap = o->cap ? o->cap * 2 : 1 << 16;
	while (o->cap < o->n + more)
		o->cap *= 2;
	o->b = realloc(o->b, o->cap);
	if (!o->b)
		die("out of memory");
}

static void varint(struct bytes *o, uint64_t v)
{
	grow(o, 10);
	while (v >= 0x80) {
		o->b[o->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	o->b[o->n++] = (uint8_t)v;
}

static void encode(struct bytes *o, const struct vw_ivs *iv)
{
	varint(o, iv->n);
	int64_t prev = 0;
	for (size_t i = 0; i < iv->n; i++) {
		const struct vw_iv *v = &iv->v[i];
		varint(o, (uint64_t)(v->start - prev));
		varint(o, (uint64_t)(v->end - v->start));
		varint(o, (uint64_t)v->state << 1 | !!v->detail);
		if (v->detail)
			varint(o, v->detail);
		prev = v->end;
	}
}

/* JSON string, safe inside a <script> element. */
static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p < 0x80 ? *p : 0xfffd); /* not UTF-8 aware: keep it ASCII */
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

static void base64(FILE *f, const uint8_t *b, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char line[4100];
	size_t k = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v =
			(uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
		line[k++] = a[v >> 18 & 63];
		line[k++] = a[v >> 12 & 63];
		line[k++] = i + 1 < n ? a[v >> 6 & 63] : '=';
		line[k++] = i + 2 < n ? a[v & 63] : '=';
		if (k >= 4096) {
			fwrite(line, 1, k, f);
			k = 0;
		}
	}
	fwrite(line, 1, k, f);
}

static struct vw_model *sort_model;

static int row_cmp(const void *a, const void *b)
{
	const struct vw_row *x = &sort_model->rows[*(const int *)a], *y = &sort_model->rows[*(const int *)b];
	const struct vw_proc *p = &sort_model->procs[x->proc], *q = &sort_model->procs[y->proc];
	if (x->proc != y->proc) {
		if (p->first != q->first)
			return p->first < q->first ? -1 : 1;
		return x->proc < y->proc ? -1 : 1;
	}
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int vw_write_html(FILE *f, struct vw_model *m, const char *title, size_t budget)
{
	int *order = malloc(sizeof(int) * (size_t)(m->nrows + 1));
	if (!order)
		die("out of memory");
	int n = 0;
	for (int i = 0; i < m->nrows; i++)
		if (m->rows[i].seen && m->rows[i].first >= 0)
			order[n++] = i;
	sort_model = m;
	qsort(order, (size_t)n, sizeof(*order), row_cmp);

	/* The finest resolution whose data fits (exact when it does). */
	struct bytes data = { 0 }, fine = { 0 };
	struct vw_ivs tmp = { 0 };
	int64_t q = 1;
	for (;;) {
		fine.n = 0;
		for (int i = 0; i < n; i++) {
			vw_resample(&m->rows[order[i]].iv, q, &tmp);
			encode(&fine, &tmp);
		}
		if (fine.n * 4 / 3 <= budget || q > m->duration)
			break;
		q = q == 1 ? 16 : q * 4;
	}
	int64_t qov = m->duration / 2048 + 1;
	if (qov < q)
		qov = q;
	for (int i = 0; i < n; i++) {
		vw_resample(&m->rows[order[i]].iv, qov, &tmp);
		encode(&data, &tmp);
	}
	size_t overview_bytes = data.n;
	if (fine.n) {
		grow(&data, fine.n);
		memcpy(data.b + data.n, fine.b, fine.n);
		data.n += fine.n;
	}
	free(fine.b);
	free(tmp.v);

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	html_text(f, title);
	fputs(" - ovni-auto view</title>\n<style>\n", f);
	fputs(oa_view_css, f);
	fputs("</style></head>\n<body>\n", f);
	fputs(oa_view_body, f);
	fputs("<script type=\"application/json\" id=\"oa-meta\">{\"title\":", f);
	jstr(f, title);
	fprintf(f, ",\"duration\":%lld,\"events\":%lld,\"quantum\":%lld,\"overviewQuantum\":%lld,\"overviewBytes\":%zu",
		(long long)m->duration, m->events, (long long)q, (long long)qov, overview_bytes);
	fprintf(f, ",\"damaged\":%d,\n\"strings\":[", m->bad);
	for (size_t i = 0; i < m->nstrs; i++) {
		if (i)
			fputc(',', f);
		jstr(f, m->strs[i]);
	}
	fputs("],\n\"states\":[", f);
	for (int i = 0; i < m->nstates; i++)
		fprintf(f, "%s[%u,%d,%lld,%ld]", i ? "," : "", m->states[i].name, m->states[i].kind,
			(long long)m->states[i].ns, m->states[i].count);
	fputs("],\n\"procs\":[", f);
	for (int i = 0; i < m->nprocs; i++)
		fprintf(f, "%s[%d,%d,%u]", i ? "," : "", m->procs[i].pid, m->procs[i].rank, m->procs[i].name);
	fputs("],\n\"mpi\":[", f);
	int first = 1;
	for (int i = 0; i < m->nprocs; i++)
		for (int k = 0; k < m->procs[i].nmpi; k++, first = 0)
			fprintf(f, "%s[%d,%u,%lld,%ld]", first ? "" : ",", i, m->procs[i].mpi[k].state,
				(long long)m->procs[i].mpi[k].ns, m->procs[i].mpi[k].calls);
	fputs("],\n\"rows\":[", f);
	for (int i = 0; i < n; i++) {
		const struct vw_row *r = &m->rows[order[i]];
		fprintf(f, "%s[%d,%d,%u,%lld,%lld,[", i ? ",\n" : "", r->proc, r->tid, r->name, (long long)r->first,
			(long long)r->last);
		for (int k = 0; k < VW_NKINDS; k++)
			fprintf(f, "%s%lld", k ? "," : "", (long long)r->kind_ns[k]);
		fputs("],[", f);
		for (size_t k = 0; k < r->nmarks; k++)
			fprintf(f, "%s[%lld,%u]", k ? "," : "", (long long)r->marks[k].ts, r->marks[k].text);
		fputs("]]", f);
	}
	fputs("]}</script>\n<script type=\"application/octet-stream\" id=\"oa-data\">", f);
	base64(f, data.b, data.n);
	fputs("</script>\n<script>\n", f);
	fputs(oa_view_js, f);
	fputs("</script>\n</body></html>\n", f);
	free(data.b);
	free(order);
	return ferror(f) ? (errno ? -1 : (errno = EIO, -1)) : 0;
}
