/* report_page.h: writes the report: one self-contained HTML page (decoder/report/report.html
 * with report.css and report.js inlined, embedded at build time) whose data is one JSON object
 * in a <script type="application/json"> element.
 * Invariants: nothing in the data can end its element (every '<' in a string is escaped); the
 * page loads nothing from elsewhere (it must open from disk, offline, as a CI artifact). */
#ifndef GOTRACE_DECODER_REPORT_PAGE_H
#define GOTRACE_DECODER_REPORT_PAGE_H

#include "decode.h"
#include "out.h"
#include "report_model.h"

/* The template (with @CSS@, @DATA@ and @JS@ markers), style sheet and script of report/, each
 * NUL-terminated (report_assets.c). */
extern const char gd_report_html[], gd_report_css[], gd_report_js[];

/* Writes the page for the trace file (decoded by d, analysed into a and m, m->sync the holders
 * analysis or NULL) to o. It cannot fail by itself: a failed write is o's error, found when
 * the caller flushes (sink.c). */
void gd_report_page(struct gd_out *o, const char *file, const struct gd_dec *d, struct gd_ana *a,
                    const struct rm *m);

#endif
