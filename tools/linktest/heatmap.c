/* heatmap.c: LinkTest matrix pictures (see heatmap.h). The PNG encoder
 * writes RGB rows through "stored" (uncompressed) deflate blocks with its
 * own CRC-32 and Adler-32: simple, dependency-free, and small matrices stay
 * small files. */
#include "heatmap.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN 40
#define BAR 20
#define HIST_H 120
#define BINS 20

void hm_geometry(int n, struct hm_geometry *g)
{
	g->cell = 480 / n;
	if (g->cell > 24)
		g->cell = 24;
	if (g->cell < 1)
		g->cell = 1;
	g->matrix = g->cell * n;
	g->width = MARGIN + g->matrix + BAR + BAR + 80;
	g->height = MARGIN + g->matrix + MARGIN + HIST_H + 30;
}

/* A perceptual-ish scale: dark blue, teal, green, yellow. */
static void colour(double t, uint8_t rgb[3])
{
	static const double stops[5][3] = {
		{ 68, 1, 84 }, { 59, 82, 139 }, { 33, 145, 140 }, { 94, 201, 98 }, { 253, 231, 37 }
	};
	if (!(t >= 0))
		t = 0;
	if (t > 1)
		t = 1;
	double x = t * 4;
	int i = x >= 4 ? 3 : (int)x;
	double f = x - i;
	for (int k = 0; k < 3; k++)
		rgb[k] = (uint8_t)(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f + 0.5);
}

struct picture {
	int w, h;
	uint8_t *px;
};

static void fill(struct picture *p, int x0, int y0, int w, int h, const uint8_t rgb[3])
{
	for (int y = y0; y < y0 + h && y < p->h; y++)
		for (int x = x0; x < x0 + w && x < p->w; x++)
			memcpy(p->px + 3 * ((size_t)y * (size_t)p->w + (size_t)x), rgb, 3);
}

static void range(const double *m, int n, double *lo, double *hi)
{
	*lo = INFINITY, *hi = -INFINITY;
	for (int b = 0; b < n; b++)
		for (int a = 0; a < n; a++)
			if (a != b) {
				if (m[b * n + a] < *lo)
					*lo = m[b * n + a];
				if (m[b * n + a] > *hi)
					*hi = m[b * n + a];
			}
	if (!(*hi > *lo))
		*hi = *lo + 1e-12;
}

static void histogram(const double *m, int n, double lo, double hi, int bins[BINS], int *top)
{
	memset(bins, 0, sizeof(int) * BINS);
	*top = 1;
	for (int b = 0; b < n; b++)
		for (int a = 0; a < n; a++)
			if (a != b) {
				int i = (int)((m[b * n + a] - lo) / (hi - lo) * BINS);
				i = i < 0 ? 0 : i >= BINS ? BINS - 1 : i;
				if (++bins[i] > *top)
					*top = bins[i];
			}
}

static uint32_t crc_table[256];

static uint32_t crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	if (!crc_table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			crc_table[i] = c;
		}
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static int chunk(FILE *f, const char *type, const uint8_t *data, uint32_t n)
{
	uint8_t hdr[8];
	be32(hdr, n);
	memcpy(hdr + 4, type, 4);
	uint32_t crc = crc32(crc32(0, hdr + 4, 4), data, n);
	uint8_t tail[4];
	be32(tail, crc);
	return fwrite(hdr, 1, 8, f) == 8 && (!n || fwrite(data, 1, n, f) == n) && fwrite(tail, 1, 4, f) == 4 ? 0 : -1;
}

static int write_png(const char *path, const struct picture *p)
{
	size_t row = 1 + 3 * (size_t)p->w, raw = row * (size_t)p->h;
	size_t nblocks = raw / 65535 + 1;
	uint8_t *z = malloc(2 + raw + 5 * nblocks + 4);
	size_t zn = 0;
	z[zn++] = 0x78, z[zn++] = 0x01; /* zlib header: deflate, no preset dictionary */
	uint32_t a = 1, b = 0;
	uint8_t *rawbuf = malloc(raw);
	for (int y = 0; y < p->h; y++) {
		rawbuf[(size_t)y * row] = 0; /* filter: none */
		memcpy(rawbuf + (size_t)y * row + 1, p->px + (size_t)y * 3 * (size_t)p->w, row - 1);
	}
	for (size_t off = 0; off < raw || off == 0;) {
		size_t len = raw - off > 65535 ? 65535 : raw - off;
		z[zn++] = off + len == raw ? 1 : 0; /* BFINAL, BTYPE 00 */
		z[zn++] = (uint8_t)len, z[zn++] = (uint8_t)(len >> 8);
		z[zn++] = (uint8_t)~len, z[zn++] = (uint8_t)(~len >> 8);
		memcpy(z + zn, rawbuf + off, len);
		zn += len;
		for (size_t i = 0; i < len; i++) {
			a = (a + rawbuf[off + i]) % 65521;
			b = (b + a) % 65521;
		}
		off += len;
		if (!len)
			break;
	}
	be32(z + zn, b << 16 | a);
	zn += 4;
	uint8_t ihdr[13];
	be32(ihdr, (uint32_t)p->w);
	be32(ihdr + 4, (uint32_t)p->h);
	ihdr[8] = 8, ihdr[9] = 2, ihdr[10] = 0, ihdr[11] = 0, ihdr[12] = 0; /* 8-bit RGB */
	FILE *f = fopen(path, "wb");
	int r = !f || fwrite("\x89PNG\r\n\x1a\n", 1, 8, f) != 8 || chunk(f, "IHDR", ihdr, 13) ||
		chunk(f, "IDAT", z, (uint32_t)zn) || chunk(f, "IEND", NULL, 0);
	if (f && fclose(f) != 0)
		r = 1;
	free(z);
	free(rawbuf);
	return r ? -1 : 0;
}

static int write_svg(const char *path, const double *m, int n, const char *title, const struct hm_geometry *g,
		     double lo, double hi)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
		"font-size=\"10\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		g->width, g->height);
	fprintf(f, "<text x=\"%d\" y=\"16\" font-size=\"12\">%s</text>\n", MARGIN, title);
	fprintf(f, "<text x=\"%d\" y=\"%d\">A (measuring rank) →, B (partner) ↓</text>\n", MARGIN, MARGIN - 6);
	for (int b = 0; b < n; b++)
		for (int a = 0; a < n; a++) {
			uint8_t c[3] = { 200, 200, 200 };
			if (a != b)
				colour((m[b * n + a] - lo) / (hi - lo), c);
			fprintf(f,
				"<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				"fill=\"#%02x%02x%02x\">"
				"<title>%d→%d: %.3f us</title></rect>\n",
				MARGIN + a * g->cell, MARGIN + b * g->cell, g->cell, g->cell, c[0], c[1], c[2], a, b,
				m[b * n + a] * 1e6);
		}
	int bx = MARGIN + g->matrix + BAR;
	for (int i = 0; i < g->matrix; i++) {
		uint8_t c[3];
		colour(1.0 - (double)i / g->matrix, c);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"1\" fill=\"#%02x%02x%02x\"/>\n", bx,
			MARGIN + i, BAR, c[0], c[1], c[2]);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">%.3f us</text>\n<text x=\"%d\" y=\"%d\">%.3f us</text>\n", bx + BAR + 4,
		MARGIN + 8, hi * 1e6, bx + BAR + 4, MARGIN + g->matrix, lo * 1e6);
	int bins[BINS], top;
	histogram(m, n, lo, hi, bins, &top);
	int hy = MARGIN + g->matrix + MARGIN, bw = (g->matrix + BAR + BAR) / BINS;
	for (int i = 0; i < BINS; i++) {
		int h = bins[i] * HIST_H / top;
		uint8_t c[3];
		colour((i + 0.5) / BINS, c);
		fprintf(f,
			"<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%02x%02x%02x\">"
			"<title>%d links</title></rect>\n",
			MARGIN + i * bw, hy + HIST_H - h, bw - 1, h, c[0], c[1], c[2], bins[i]);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">%.3f us</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.3f us</text>\n",
		MARGIN, hy + HIST_H + 14, lo * 1e6, MARGIN + BINS * bw, hy + HIST_H + 14, hi * 1e6);
	fprintf(f, "<text x=\"%d\" y=\"%d\">histogram of the times (%d links at most per bar)</text>\n</svg>\n", MARGIN,
		hy - 6, top);
	return fclose(f) != 0 ? -1 : 0;
}

int hm_write(const char *path, const double *m, int n, const char *title)
{
	struct hm_geometry g;
	hm_geometry(n, &g);
	double lo, hi;
	range(m, n, &lo, &hi);
	size_t len = strlen(path);
	if (len > 4 && !strcmp(path + len - 4, ".svg"))
		return write_svg(path, m, n, title, &g, lo, hi);
	struct picture p = { g.width, g.height, malloc((size_t)g.width * (size_t)g.height * 3) };
	memset(p.px, 255, (size_t)g.width * (size_t)g.height * 3);
	for (int b = 0; b < n; b++)
		for (int a = 0; a < n; a++) {
			uint8_t c[3] = { 200, 200, 200 };
			if (a != b)
				colour((m[b * n + a] - lo) / (hi - lo), c);
			fill(&p, MARGIN + a * g.cell, MARGIN + b * g.cell, g.cell, g.cell, c);
		}
	for (int i = 0; i < g.matrix; i++) {
		uint8_t c[3];
		colour(1.0 - (double)i / g.matrix, c);
		fill(&p, MARGIN + g.matrix + BAR, MARGIN + i, BAR, 1, c);
	}
	int bins[BINS], top;
	histogram(m, n, lo, hi, bins, &top);
	int hy = MARGIN + g.matrix + MARGIN, bw = (g.matrix + BAR + BAR) / BINS;
	for (int i = 0; i < BINS; i++) {
		int h = bins[i] * HIST_H / top;
		uint8_t c[3];
		colour((i + 0.5) / BINS, c);
		fill(&p, MARGIN + i * bw, hy + HIST_H - h, bw > 1 ? bw - 1 : 1, h, c);
	}
	int r = write_png(path, &p);
	free(p.px);
	return r;
}
