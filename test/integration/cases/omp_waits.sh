# omp_waits: OpenMP waits (hooks/omp.c, issue 19) in progs/omp_waits.c, built with gcc
# (libgomp: GOMP_barrier, GOMP_critical_name_start, omp_set_lock) and with clang (libomp:
# __kmpc_barrier, __kmpc_critical, omp_set_lock), each when the compiler can build it. The
# master holds the others back by computing: 2 x 200 ms at a barrier, 5 x 20 ms at a named
# critical section, 5 x 20 ms at an omp lock. Checks: output as untraced; valid trace;
# `go tool trace -pprof=sync` totals 600 ms within 10 %, and names the lines of the three
# waiting constructs; one block per wait with its reason (sync: omp barrier / critical / lock);
# each woken by the master (the main thread's M): the last to arrive, the releaser (just before
# its real release; at least 4 of each 5 are asked, measured 5 of 5 in 20 runs). Then a
# library built with gcc -fopenmp and loaded with RTLD_LOCAL (progs/omp_lib.c via omp_dlopen.c:
# its libgomp is outside the global scope, where RTLD_NEXT looks): same output, its barrier wait.
source "$GT_ROOT/test/integration/lib_profiles.sh"

src=$GT_PROGS/omp_waits.c
ran=0
for cc in gcc clang; do
    bin=$CASE_DIR/omp_waits-$cc
    omp_build "$cc" "$src" "$bin" || continue
    ran=$((ran + 1))
    plain_run "plain-$cc" -- "$bin"
    want=$(cat "$RUN_OUT")
    trace_run "$cc" -- "$bin"
    expect_status "omp_waits ($cc)" 0
    assert_eq "$(cat "$RUN_OUT")" "$want" "output ($cc)"
    validate "$RUN_TRACE"
    tr=$RUN_TRACE
    m=$(gid_m "$tr" 1)
    for what in "barrier 2 2" "critical 5 4" "lock 5 4"; do
        set -- $what
        n=0 woken=0
        for g in $(gt_trans "$tr" | awk -F'\t' '$1 != 1 { print $1 }' | sort -un); do
            n=$((n + $(blocks "$tr" "$g" "sync: omp $1")))
            woken=$((woken + $(woken_by "$tr" "$g" "$m" "sync: omp $1")))
        done
        assert_eq "$n" "$2" "$cc: waits at the omp $1"
        assert_ge "$woken" "$3" "$cc: omp $1 waits woken by the master"
    done
    stacks_on || continue
    assert_within "$cc: sync profile total (ms)" "$(pprof_total_ms "$tr" sync)" 600 10
    for mark in "the barrier" "the critical section" "the lock"; do
        line=$(grep -n "omp_waits: $mark" "$src" | cut -d: -f1)
        assert_true "$cc: sync profile names omp_waits.c:$line ($mark)" \
            pprof_names "$tr" sync "omp_waits.c:$line"
    done
done
assert_ge "$ran" 1 "builds of omp_waits"

lib=$CASE_DIR/libomp_lib.so
if gcc -shared -fPIC -O1 -g -fopenmp -I"$GT_PROGS" -o "$lib" "$GT_PROGS/omp_lib.c" 2>>"$CASE_DIR/build.log"; then
    loader=$(build_prog omp_dlopen)
    trace_run dlopen -- "$loader" "$lib"
    expect_status "omp_dlopen" 0
    assert_eq "$(cat "$RUN_OUT")" 2 "omp_dlopen output"
    validate "$RUN_TRACE"
    assert_eq "$(gt_trans "$RUN_TRACE" | awk -F'\t' '$3 == "Waiting" && index($4, "sync: omp barrier")' |
        grep -c . || true)" 1 "the RTLD_LOCAL library's barrier waits"
else
    skip_part "gcc -fopenmp -shared: not built"
fi
