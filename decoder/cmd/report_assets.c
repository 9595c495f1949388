/* report_assets.c: the report page's template, style sheet and script, embedded at build time
 * from decoder/report/ (the assembler's .incbin; decoder.mk rebuilds this object when they
 * change). The page's files stay plain HTML, CSS and JavaScript, edited as such, instead of C
 * string literals (every quote, backslash and line end escaped); .incbin reads them at
 * assembly time, so the binary needs no file at run time. The paths are relative to the
 * repository's root, where make runs the assembler.
 * Invariant: each is NUL-terminated (the .byte 0 after it), so report_page.c finds its end
 * and its markers with the string functions. */
#include "report_page.h"

__asm__(".section .rodata\n"
        ".global gd_report_html\n"
        ".type gd_report_html, @object\n"
        "gd_report_html:\n"
        ".incbin \"decoder/report/report.html\"\n"
        ".byte 0\n"
        ".global gd_report_css\n"
        ".type gd_report_css, @object\n"
        "gd_report_css:\n"
        ".incbin \"decoder/report/report.css\"\n"
        ".byte 0\n"
        ".global gd_report_js\n"
        ".type gd_report_js, @object\n"
        "gd_report_js:\n"
        ".incbin \"decoder/report/report.js\"\n"
        ".byte 0\n"
        ".previous\n");
