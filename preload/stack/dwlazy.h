/* dwlazy.h: elfutils (libdw, libelf) loaded on first need, with dlopen, not at start.
 * Invariants: included by symbolize.c only, after the elfutils headers: each libdw or libelf
 * function it calls names a pointer filled by dwlazy_load (a macro per function), so the
 * library has no link-time dependency on them and a process whose frames the symbol cache
 * knows (symcache.h) never maps libdw, libelf and their compression libraries. */
#ifndef GOTRACE_DWLAZY_H
#define GOTRACE_DWLAZY_H
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#define DWLAZY_FUNCS(X)                                                                            \
    X(dwarf_aggregate_size)                                                                        \
    X(dwarf_attr)                                                                                  \
    X(dwarf_attr_integrate)                                                                        \
    X(dwarf_child)                                                                                 \
    X(dwarf_cu_getdwarf)                                                                           \
    X(dwarf_cu_info)                                                                               \
    X(dwarf_diename)                                                                               \
    X(dwarf_dieoffset)                                                                             \
    X(dwarf_filesrc)                                                                               \
    X(dwarf_formref_die)                                                                           \
    X(dwarf_formstring)                                                                            \
    X(dwarf_formudata)                                                                             \
    X(dwarf_get_units)                                                                             \
    X(dwarf_getscopes)                                                                             \
    X(dwarf_getscopes_die)                                                                         \
    X(dwarf_getsrc_die)                                                                            \
    X(dwarf_getsrcfiles)                                                                           \
    X(dwarf_haschildren)                                                                           \
    X(dwarf_haspc)                                                                                 \
    X(dwarf_lineno)                                                                                \
    X(dwarf_linesrc)                                                                               \
    X(dwarf_nextcu)                                                                                \
    X(dwarf_offdie)                                                                                \
    X(dwarf_ranges)                                                                                \
    X(dwarf_siblingof)                                                                             \
    X(dwarf_tag)                                                                                   \
    X(dwelf_elf_gnu_build_id)                                                                      \
    X(dwfl_addrmodule)                                                                             \
    X(dwfl_begin)                                                                                  \
    X(dwfl_build_id_find_debuginfo)                                                                \
    X(dwfl_end)                                                                                    \
    X(dwfl_lineinfo)                                                                               \
    X(dwfl_linux_proc_find_elf)                                                                    \
    X(dwfl_linux_proc_maps_report)                                                                 \
    X(dwfl_linux_proc_report)                                                                      \
    X(dwfl_module_addrdie)                                                                         \
    X(dwfl_module_addrinfo)                                                                        \
    X(dwfl_module_addrname)                                                                        \
    X(dwfl_module_build_id)                                                                        \
    X(dwfl_module_getdwarf)                                                                        \
    X(dwfl_module_getsrc)                                                                          \
    X(dwfl_module_info)                                                                            \
    X(dwfl_report_begin)                                                                           \
    X(dwfl_report_end)                                                                             \
    X(elf_begin)                                                                                   \
    X(elf_end)

#define DWLAZY_DECLARE(f) extern __typeof__(f) *dwlazy_##f;
DWLAZY_FUNCS(DWLAZY_DECLARE)
#undef DWLAZY_DECLARE

/* 0 when every function is there (loaded now or before), -1 if libdw cannot be loaded (then
 * it is not tried again). Single-threaded: the flusher. */
int dwlazy_load(void);

#define dwarf_aggregate_size (*dwlazy_dwarf_aggregate_size)
#define dwarf_attr (*dwlazy_dwarf_attr)
#define dwarf_attr_integrate (*dwlazy_dwarf_attr_integrate)
#define dwarf_child (*dwlazy_dwarf_child)
#define dwarf_cu_getdwarf (*dwlazy_dwarf_cu_getdwarf)
#define dwarf_cu_info (*dwlazy_dwarf_cu_info)
#define dwarf_diename (*dwlazy_dwarf_diename)
#define dwarf_dieoffset (*dwlazy_dwarf_dieoffset)
#define dwarf_filesrc (*dwlazy_dwarf_filesrc)
#define dwarf_formref_die (*dwlazy_dwarf_formref_die)
#define dwarf_formstring (*dwlazy_dwarf_formstring)
#define dwarf_formudata (*dwlazy_dwarf_formudata)
#define dwarf_get_units (*dwlazy_dwarf_get_units)
#define dwarf_getscopes (*dwlazy_dwarf_getscopes)
#define dwarf_getscopes_die (*dwlazy_dwarf_getscopes_die)
#define dwarf_getsrc_die (*dwlazy_dwarf_getsrc_die)
#define dwarf_getsrcfiles (*dwlazy_dwarf_getsrcfiles)
#define dwarf_haschildren (*dwlazy_dwarf_haschildren)
#define dwarf_haspc (*dwlazy_dwarf_haspc)
#define dwarf_lineno (*dwlazy_dwarf_lineno)
#define dwarf_linesrc (*dwlazy_dwarf_linesrc)
#define dwarf_nextcu (*dwlazy_dwarf_nextcu)
#define dwarf_offdie (*dwlazy_dwarf_offdie)
#define dwarf_ranges (*dwlazy_dwarf_ranges)
#define dwarf_siblingof (*dwlazy_dwarf_siblingof)
#define dwarf_tag (*dwlazy_dwarf_tag)
#define dwelf_elf_gnu_build_id (*dwlazy_dwelf_elf_gnu_build_id)
#define dwfl_addrmodule (*dwlazy_dwfl_addrmodule)
#define dwfl_begin (*dwlazy_dwfl_begin)
#define dwfl_build_id_find_debuginfo (*dwlazy_dwfl_build_id_find_debuginfo)
#define dwfl_end (*dwlazy_dwfl_end)
#define dwfl_lineinfo (*dwlazy_dwfl_lineinfo)
#define dwfl_linux_proc_find_elf (*dwlazy_dwfl_linux_proc_find_elf)
#define dwfl_linux_proc_maps_report (*dwlazy_dwfl_linux_proc_maps_report)
#define dwfl_linux_proc_report (*dwlazy_dwfl_linux_proc_report)
#define dwfl_module_addrdie (*dwlazy_dwfl_module_addrdie)
#define dwfl_module_addrinfo (*dwlazy_dwfl_module_addrinfo)
#define dwfl_module_addrname (*dwlazy_dwfl_module_addrname)
#define dwfl_module_build_id (*dwlazy_dwfl_module_build_id)
#define dwfl_module_getdwarf (*dwlazy_dwfl_module_getdwarf)
#define dwfl_module_getsrc (*dwlazy_dwfl_module_getsrc)
#define dwfl_module_info (*dwlazy_dwfl_module_info)
#define dwfl_report_begin (*dwlazy_dwfl_report_begin)
#define dwfl_report_end (*dwlazy_dwfl_report_end)
#define elf_begin (*dwlazy_elf_begin)
#define elf_end (*dwlazy_elf_end)
#endif
