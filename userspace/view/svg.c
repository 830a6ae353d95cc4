// SPDX-License-Identifier: GPL-2.0
/*
 * view/svg.c - --svg: the picture of a window (svg.h).
 *
 * Every coordinate is an integer or a fixed-point number printed with
 * "%.2f", and nothing depends on the machine but the time zone, so the
 * same input draws the same bytes (the golden tests run with TZ=UTC).
 * Text is escaped for XML; names may hold any byte but NUL, and a
 * control byte is written as '?'.
 */
#include <inttypes.h>
#include <string.h>

#include "util.h"
#include "svg.h"

/*
 * Okabe and Ito's eight colours for the states a person looks for first
 * (USR, SYS, LCK, KLK, IOW, LAT, ...), Paul Tol's for the rest, greys
 * for the sleeps that are usually just waiting: told apart with every
 * common colour-vision deficiency by hue or lightness.
 */
const char *const svg_state_colour[TSA_NSTATES] = {
	[S_USR] = "#009E73", [S_SYS] = "#0072B2", [S_TRP] = "#56B4E9",
	[S_TFL] = "#CC79A7", [S_DFL] = "#AA4499", [S_KFL] = "#882255",
	[S_APG] = "#999933", [S_LCK] = "#D55E00", [S_KLK] = "#E69F00",
	[S_IOW] = "#F0E442", [S_IDL] = "#DDDDDD", [S_SLP] = "#BBCCEE",
	[S_LAT] = "#000000", [S_STP] = "#661100",
};

/* The heat map's ramp (viridis, 8 steps), from one stay to the most. */
static const char *const heat_ramp[] = {
	"#440154", "#46327E", "#365C8D", "#277F8E", "#1FA187", "#4AC16D",
	"#A0DA39", "#FDE725",
};

#define HEAD_H		84
#define HEAT_ROW	5
#define HEAT_H		(28 + SVG_HEAT_BUCKETS * HEAT_ROW + 34)
#define NOHEAT_H	40
#define TOP_LINES	10
#define TOP_H		(28 + TOP_LINES * 16 + 12)
#define PAGE_HEAD	30
#define BAND_STEP	(SVG_BAND_H + 8)
#define AXIS_H		34
#define PAGE_GAP	24

static size_t npages(const struct svg_in *in)
{
	return in->nb ? (in->nb + in->per_page - 1) / in->per_page : 1;
}

long svg_height(const struct svg_in *in)
{
	size_t p, pages = npages(in), rows;
	long h = HEAD_H + (in->heat ? HEAT_H : NOHEAT_H) + TOP_H;

	for (p = 0; p < pages; p++) {
		rows = in->nb - p * in->per_page;
		if (rows > in->per_page)
			rows = in->per_page;
		h += PAGE_HEAD + (long)rows * BAND_STEP + AXIS_H + PAGE_GAP;
	}
	return h;
}

size_t svg_columns(size_t nintervals)
{
	size_t most = SVG_PLOT_W / 3;

	return nintervals < most ? (nintervals ? nintervals : 1) : most;
}

/* @s as XML text: &, <, >, quotes escaped, control bytes as '?'. */
static void xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', f);
		else
			fputc(c, f);
	}
}

static void secs(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000,
		ns % 1000000000);
}

static void local(char *out, size_t len, time_t t, const char *fmt)
{
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(out, len, fmt, &tm);
}

static double span(const struct svg_in *in)
{
	double s = (double)(in->to.tv_sec - in->from.tv_sec) +
		   (double)(in->to.tv_nsec - in->from.tv_nsec) / 1e9;

	return s > 0 ? s : 1;
}

/* x of wall time @t (seconds since the epoch). */
static double x_of(const struct svg_in *in, double t)
{
	double t0 = (double)in->from.tv_sec + (double)in->from.tv_nsec / 1e9;

	return SVG_PLOT_X + (t - t0) / span(in) * SVG_PLOT_W;
}

/*
 * A time axis at @y: ticks at round local times (a step giving at most
 * eight), "HH:MM:SS", with the date at the first tick and wherever it
 * changes.
 */
static void axis(FILE *f, const struct svg_in *in, long y)
{
	static const long steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600,
				      900, 1800, 3600, 7200, 10800, 21600,
				      43200, 86400, 172800, 604800 };
	double len = span(in);
	long step = steps[0], t, off;
	char day[32], last[32] = "", hms[16];
	struct tm tm;
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		step = steps[i];
		if (len / (double)step <= 8)
			break;
	}
	localtime_r(&in->from.tv_sec, &tm);
	off = tm.tm_gmtoff;
	fprintf(f, "<line x1=\"%d\" y1=\"%ld\" x2=\"%d\" y2=\"%ld\" "
		"stroke=\"#444\"/>\n", SVG_PLOT_X, y, SVG_PLOT_X + SVG_PLOT_W,
		y);
	t = ((in->from.tv_sec + off + step - 1) / step) * step - off;
	if (t == in->from.tv_sec && in->from.tv_nsec)
		t += step;
	for (; (double)t <= (double)in->to.tv_sec +
	       (double)in->to.tv_nsec / 1e9; t += step) {
		double x = x_of(in, (double)t);

		local(day, sizeof(day), (time_t)t, "%Y-%m-%d");
		local(hms, sizeof(hms), (time_t)t, "%H:%M:%S");
		fprintf(f, "<line x1=\"%.2f\" y1=\"%ld\" x2=\"%.2f\" "
			"y2=\"%ld\" stroke=\"#444\"/>\n<text x=\"%.2f\" "
			"y=\"%ld\" text-anchor=\"middle\">%s</text>\n", x, y,
			x, y + 5, x, y + 17, hms);
		if (strcmp(day, last))
			fprintf(f, "<text x=\"%.2f\" y=\"%ld\" text-anchor="
				"\"middle\" fill=\"#555\">%s</text>\n", x,
				y + 30, day);
		snprintf(last, sizeof(last), "%s", day);
	}
}

/*
 * The head: crispEdges, so that bars that meet at fractional x draw no
 * anti-aliased seam between them (a band reads as one colour where one
 * state holds it).
 */
static void head(FILE *f, const struct svg_in *in, long h)
{
	char a[64], b[64];
	int s;

	local(a, sizeof(a), in->from.tv_sec, "%Y-%m-%d %H:%M:%S %Z");
	local(b, sizeof(b), in->to.tv_sec, "%Y-%m-%d %H:%M:%S %Z");
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%ld\" viewBox=\"0 0 %d %ld\" font-family=\"sans-"
		"serif\" font-size=\"12\" shape-rendering=\"crispEdges\">\n"
		"<title>tsa-prstat: ", SVG_WIDTH,
		h, SVG_WIDTH, h);
	xml(f, in->title);
	fprintf(f, "</title>\n<rect width=\"%d\" height=\"%ld\" "
		"fill=\"#FFFFFF\"/>\n<text x=\"10\" y=\"22\" font-size=\"16\" "
		"font-weight=\"bold\">", SVG_WIDTH, h);
	xml(f, in->title);
	fprintf(f, "</text>\n<text x=\"10\" y=\"42\">%s to %s, %zu "
		"line%s; each bar: a line's time in a column, its states' "
		"shares stacked from the top</text>\n", a, b, in->nb,
		in->nb == 1 ? "" : "s");
	for (s = 0; s < TSA_NSTATES; s++) {
		int x = 10 + s * 84;

		fprintf(f, "<rect x=\"%d\" y=\"56\" width=\"14\" height="
			"\"14\" fill=\"%s\" stroke=\"#888\"/><text x=\"%d\" "
			"y=\"68\">%s</text>\n", x, svg_state_colour[s], x + 18,
			tsa_state_name[s]);
	}
}

/* The heat map of LAT stays: columns of time by log2 bucket. */
static long heat(FILE *f, const struct svg_in *in, long y)
{
	uint64_t most = 0, v;
	size_t c, k;
	double w = (double)SVG_PLOT_W / (double)in->ncols;

	if (!in->heat) {
		fprintf(f, "<text x=\"10\" y=\"%ld\">LAT heat map: ", y + 24);
		xml(f, in->heat_why ? in->heat_why : "none");
		fputs("</text>\n", f);
		return y + NOHEAT_H;
	}
	for (k = 0; k < in->ncols * SVG_HEAT_BUCKETS; k++)
		if (in->heat[k] > most)
			most = in->heat[k];
	fprintf(f, "<text x=\"10\" y=\"%ld\" font-weight=\"bold\">LAT heat "
		"map: runnable stays that ended, by length (log2 buckets, "
		"longest at the top; each label the bucket's upper bound) and "
		"time; colour: count, most %" PRIu64
		"</text>\n", y + 18, most);
	y += 28;
	for (k = 0; k + 1 < SVG_HEAT_BUCKETS; k += 4) {
		char edge[24];

		format_dur(edge, tsa_hist_edge(in->bounds, (int)k));
		fprintf(f, "<text x=\"%d\" y=\"%ld\" text-anchor=\"end\" "
			"font-size=\"10\">%s</text>\n", SVG_PLOT_X - 6,
			y + (long)(SVG_HEAT_BUCKETS - k) * HEAT_ROW, edge);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%ld\" width=\"%d\" height=\"%d\" "
		"fill=\"#F4F4F4\"/>\n", SVG_PLOT_X, y, SVG_PLOT_W,
		SVG_HEAT_BUCKETS * HEAT_ROW);
	for (c = 0; c < in->ncols; c++)
		for (k = 0; k < SVG_HEAT_BUCKETS; k++) {
			size_t step;

			v = in->heat[c * SVG_HEAT_BUCKETS + k];
			if (!v)
				continue;
			/* log scale: 1 the darkest, the most the brightest */
			for (step = 0; most > 1 && step < 7 &&
			     (double)(step + 1) / 7 <= (double)(64 -
			     __builtin_clzll(v)) / (double)(64 -
			     __builtin_clzll(most)); step++)
				;
			fprintf(f, "<rect x=\"%.2f\" y=\"%ld\" width=\"%.2f\" "
				"height=\"%d\" fill=\"%s\"><title>%" PRIu64
				" LAT stays in bucket %zu (up to ", SVG_PLOT_X +
				(double)c * w, y + (long)(SVG_HEAT_BUCKETS - 1 -
				k) * HEAT_ROW, w, HEAT_ROW, heat_ramp[step], v, k);
			if (k + 1 < SVG_HEAT_BUCKETS)
				fprintf(f, "%" PRIu64 " ns)</title></rect>\n",
					tsa_hist_edge(in->bounds, (int)k));
			else
				fputs("longer)</title></rect>\n", f);
		}
	y += SVG_HEAT_BUCKETS * HEAT_ROW;
	axis(f, in, y);
	return y + 34;
}

static void top_list(FILE *f, int x, long y, const char *what,
		     const struct svg_top *t, size_t n, const char *why)
{
	size_t i;

	fprintf(f, "<text x=\"%d\" y=\"%ld\" font-weight=\"bold\">%s</text>"
		"\n", x, y + 18, what);
	if (!n) {
		fprintf(f, "<text x=\"%d\" y=\"%ld\">", x, y + 36);
		xml(f, why ? why : "none in the window");
		fputs("</text>\n", f);
	}
	for (i = 0; i < n && i < TOP_LINES; i++) {
		fprintf(f, "<text x=\"%d\" y=\"%ld\"><title>", x,
			y + 44 + (long)i * 16);
		xml(f, t[i].what);
		fputs(": ", f);
		secs(f, t[i].ns);
		fprintf(f, ", %" PRIu64 "</title>%.3f s  ", t[i].n,
			(double)t[i].ns / 1e9);
		xml(f, t[i].what);
		fputs("</text>\n", f);
	}
}

/* One band: its label, then a bar per column of its states. */
static void band(FILE *f, const struct svg_in *in, const struct svg_band *b,
		 long y)
{
	double w = (double)SVG_PLOT_W / (double)in->ncols;
	size_t c;
	int s;

	fprintf(f, "<text x=\"%d\" y=\"%ld\" text-anchor=\"end\">",
		SVG_PLOT_X - 8, y + SVG_BAND_H / 2 + 4);
	xml(f, b->name);
	fprintf(f, "</text>\n<rect x=\"%d\" y=\"%ld\" width=\"%d\" "
		"height=\"%d\" fill=\"#FFFFFF\" stroke=\"#CCC\"/>\n",
		SVG_PLOT_X, y, SVG_PLOT_W, SVG_BAND_H);
	for (c = 0; c < in->ncols; c++) {
		const uint64_t *ns = &b->ns[c * TSA_NSTATES];
		uint64_t el = 0, at = 0;

		for (s = 0; s < TSA_NSTATES; s++)
			el += ns[s];
		if (!el)
			continue;
		fputs("<g><title>", f);
		xml(f, b->name);
		fputs(":", f);
		for (s = 0; s < TSA_NSTATES; s++) {
			if (!ns[s])
				continue;
			fprintf(f, " %s ", tsa_state_name[s]);
			secs(f, ns[s]);
			fprintf(f, " (%.1f %%)", 100.0 * (double)ns[s] /
				(double)el);
		}
		fputs("</title>\n", f);
		for (s = 0; s < TSA_NSTATES; s++) {
			double y0 = (double)y + (double)SVG_BAND_H *
				    (double)at / (double)el, h;

			if (!ns[s])
				continue;
			at += ns[s];
			h = (double)y + (double)SVG_BAND_H * (double)at /
			    (double)el - y0;
			fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\"/>\n",
				SVG_PLOT_X + (double)c * w, y0, w, h,
				svg_state_colour[s]);
		}
		fputs("</g>\n", f);
	}
}

int svg_write(FILE *f, const struct svg_in *in)
{
	long h = svg_height(in), y;
	size_t p, i, pages = npages(in);

	head(f, in, h);
	y = heat(f, in, HEAD_H);
	top_list(f, 10, y, "Top wakers (waker -> woken, state: time ended)",
		 in->wk, in->nwk, in->wk_why);
	top_list(f, SVG_WIDTH / 2, y, "Top system calls (time in them)",
		 in->sc, in->nsc, in->sc_why);
	y += TOP_H;
	for (p = 0; p < pages; p++) {
		size_t a = p * in->per_page, e = a + in->per_page;

		if (e > in->nb)
			e = in->nb;
		fprintf(f, "<text x=\"10\" y=\"%ld\" font-weight=\"bold\">"
			"Page %zu of %zu: lines %zu to %zu of %zu</text>\n",
			y + 20, p + 1, pages, in->nb ? a + 1 : 0, e, in->nb);
		y += PAGE_HEAD;
		for (i = a; i < e; i++, y += BAND_STEP)
			band(f, in, &in->b[i], y);
		axis(f, in, y);
		y += AXIS_H + PAGE_GAP;
	}
	fputs("</svg>\n", f);
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}
