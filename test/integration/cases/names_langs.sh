# names_langs: names, lines and thread names of C++, Rust, OpenMP and clang-built programs
# (issue 19). Each program is built with every compiler present (g++/clang++, rustc with
# legacy and v0 symbol mangling, gcc/clang -fopenmp, clang for C) and traced. Checks, from
# `gotrace dump --stacks` and `gotrace summary`: the known wait's file:line (clang and rustc
# emit no .debug_aranges; GCC's outlined main._omp_fn.0 sits outside main's DIE range); every
# thread named by its first frame of the program's own code (app::worker(int), the lambda, the
# Rust closure, the OpenMP outlined function), never by a runtime's trampoline (libstdc++'s,
# libgomp's, Rust std's thread_start) nor module+offset; the main thread "main"; no mangled
# name; no tracer frame (its sources, tr_* helpers); a valid trace and the untraced output.
# The same for the C program traced by a copy of the library under another file name, with a
# fresh symbol cache (the tracer knew its own frames by the name "libgotrace"; a renamed copy
# showed, and cached under the library's build ID, 10 frames of the tracer's sources).

src_line() { grep -n -- "$2" "$GT_PROGS/$1" | head -n1 | cut -d: -f1; }

# traced_names TAG BIN SRC MARK NAME...: runs BIN traced; its stacks show SRC:(line of MARK),
# and summary has a thread row containing each NAME.
traced_names() {
    local tag=$1 bin=$2 src=$3 mark=$4 name want
    shift 4
    plain_run "plain-$tag" -- "$bin"
    want=$(cat "$RUN_OUT")
    trace_run "$tag" -- "$bin"
    expect_status "$tag" 0
    assert_eq "$(cat "$RUN_OUT")" "$want" "$tag output"
    validate "$RUN_TRACE"
    stacks_on || return 0
    local d=$CASE_DIR/$tag.dump s=$CASE_DIR/$tag.summary
    "$GT_BUILD/gotrace" dump --stacks "$RUN_TRACE" >"$d"
    "$GT_BUILD/gotrace" summary "$RUN_TRACE" >"$s"
    assert_contains "$d" "$src:$(src_line "$src" "$mark")" "$tag: the wait's line"
    # thread rows: the name, then the goroutine id and the thread id
    awk 'NR > 3 && /^[^ ]/ && !/^TOTAL/' "$s" | sed -E 's/ +[0-9]+ +[0-9]+ +[0-9.]+[mun]?s .*//' >"$s.names"
    assert_eq "$(grep -cx main "$s.names" || true)" 1 "$tag: threads named main"
    for name in "$@"; do
        grep -qF -- "$name" "$s.names" || fail "$tag: no thread named like '$name' ($(tr '\n' ',' <"$s.names"))"
    done
    assert_eq "$(grep -cE 'libstdc|libgomp|libomp|thread_start|\+0x' "$s.names" || true)" 0 \
        "$tag: threads named by a runtime's trampoline"
    assert_eq "$(grep -cE $'^\t_(Z[NSZ0-9]|R[NCM])[A-Za-z0-9_]' "$d" || true)" 0 "$tag: mangled names"
    assert_eq "$(grep -cE "$GT_ROOT/preload/|[[:space:]]tr_[a-z_]+ " "$d" || true)" 0 "$tag: tracer frames"
}

ran=0
build() { # build OUT COMPILER ARGS...: 1 if the compiler is missing or fails (logged)
    local out=$1 cc=$2
    shift 2
    command -v "$cc" >/dev/null || return 1
    "$cc" "$@" -o "$out" 2>>"$CASE_DIR/build.log" || {
        echo "cannot build $out with $cc" >>"$CASE_DIR/build.log"
        return 1
    }
}

for cxx in g++ clang++; do
    if build "$CASE_DIR/cxx-$cxx" "$cxx" -std=c++17 -O1 -g -pthread "$GT_PROGS/names_cxx.cc"; then
        traced_names "cxx-$cxx" "$CASE_DIR/cxx-$cxx" names_cxx.cc "names_cxx: function" \
            "app::worker(int)" "operator()"
        ran=$((ran + 1))
    else
        skip_part "$cxx: not built"
    fi
done
for mangling in legacy v0; do # legacy: rustc's default (naming it needs -Z unstable-options)
    flags=()
    [ "$mangling" = legacy ] || flags=(-C symbol-mangling-version=$mangling)
    if build "$CASE_DIR/rust-$mangling" rustc -g -C opt-level=1 "${flags[@]}" "$GT_PROGS/names_rust.rs"; then
        traced_names "rust-$mangling" "$CASE_DIR/rust-$mangling" names_rust.rs "names_rust: the" \
            "names_rust::main::{"
        ran=$((ran + 1))
    else
        skip_part "rustc ($mangling mangling): not built"
    fi
done
for cc in gcc clang; do
    if [ "$cc" = clang ] && [ "$GT_SANITIZER" = tsan ]; then
        skip_part "clang -fopenmp: libomp races under the TSan runtime alone, untraced"
        continue
    fi
    if build "$CASE_DIR/omp-$cc" "$cc" -O1 -g -fopenmp "$GT_PROGS/names_omp.c"; then
        traced_names "omp-$cc" "$CASE_DIR/omp-$cc" names_omp.c "names_omp: the" omp_
        ran=$((ran + 1))
    else
        skip_part "$cc -fopenmp: not built"
    fi
done
if build "$CASE_DIR/c-clang" clang -O1 -g -pthread "$GT_PROGS/names_c.c"; then
    traced_names c-clang "$CASE_DIR/c-clang" names_c.c "names_c: the" sleeper
    ran=$((ran + 1))
else
    skip_part "clang: not built"
fi
assert_ge "$ran" 1 "programs built"
if [ "$GT_PRELOAD" = "$GT_LIB" ] && [ -x "$CASE_DIR/c-clang" ]; then
    mkdir -p "$CASE_DIR/renamed"
    cp "$GT_LIB" "$CASE_DIR/renamed/tracer-copy.so"
    GT_PRELOAD=$CASE_DIR/renamed/tracer-copy.so
    export GOTRACE_SYMCACHE=$CASE_DIR/renamed/symcache
    traced_names c-renamed "$CASE_DIR/c-clang" names_c.c "names_c: the" sleeper
    unset GOTRACE_SYMCACHE
    GT_PRELOAD=$GT_LIB
fi
