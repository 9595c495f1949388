/* report_assets.c: the report page's template, style sheet and script, embedded at build time
 * from decoder/report/ (the assembler's .incbin; decoder.mk rebuilds this object when they
 * change). Invariant: each is NUL-terminated. */
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
