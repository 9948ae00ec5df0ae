/* heatmap.h: the picture of a LinkTest matrix: an N x N colour matrix of
 * per-pair times (column A, row B; the diagonal grey), a colour scale with
 * its values, and a histogram of the times. PNG (own encoder, no zlib) or
 * SVG (with text labels), chosen by the file name's ending. */
#ifndef OA_HEATMAP_H
#define OA_HEATMAP_H

/* Geometry, the same for both formats. */
struct hm_geometry {
	int cell, matrix, width, height;
};
void hm_geometry(int n, struct hm_geometry *g);

/* Write matrix[b * n + a] (seconds) to path (.png or .svg). 0 or -1. */
int hm_write(const char *path, const double *matrix, int n, const char *title);

#endif
