// rust_locks.rs: Rust's std Mutex and Condvar (futex words), with their holder and signaller
// known by design. Two threads named with std::thread::Builder:
// 1. 3 rounds: ledger_writer takes the ledger Mutex (on the heap, in an Arc) and holds it until
//    ledger_reader, told by an atomic that it is held, is asleep in the kernel (its
//    /proc/self/task/TID/stat state is S: it sleeps nowhere else meanwhile), then 30 ms more;
//    ledger_reader waits for it in wait_ledger. Each of the 3 waits is held by ledger_writer,
//    which takes the ledger again only once the reader had it.
// 2. ledger_reader waits in wait_signal on a Condvar until ledger_writer, once the reader is
//    asleep the same way, sets the flag and notifies: signalled by ledger_writer.
// Prints "ok".
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

static HELD: AtomicUsize = AtomicUsize::new(0); // rounds the writer holds the ledger in
static TRIED: AtomicUsize = AtomicUsize::new(0); // rounds the reader tries the ledger in
static GOT: AtomicUsize = AtomicUsize::new(0); // rounds the reader got the ledger in
static READER_TID: AtomicUsize = AtomicUsize::new(0);

// The calling thread's kernel TID, from /proc/thread-self (a link to /proc/PID/task/TID).
fn tid() -> usize {
    let link = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    link.file_name().unwrap().to_str().unwrap().parse().unwrap()
}

// Until thread tid sleeps (state S in its /proc stat).
fn until_asleep(tid: usize) {
    let path = format!("/proc/self/task/{}/stat", tid);
    loop {
        let stat = std::fs::read_to_string(&path).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start().chars().next();
        if state == Some('S') {
            return;
        }
        thread::yield_now();
    }
}

fn until_at_least(v: &AtomicUsize, n: usize) {
    while v.load(Ordering::SeqCst) < n {
        thread::yield_now();
    }
}

#[inline(never)]
fn wait_ledger(ledger: &Mutex<u64>) -> u64 {
    let mut g = ledger.lock().unwrap(); // rust_locks: the known wait
    *g += 1;
    *g
}

#[inline(never)]
fn wait_signal(sig: &(Mutex<bool>, Condvar)) {
    let mut done = sig.0.lock().unwrap();
    while !*done {
        done = sig.1.wait(done).unwrap(); // rust_locks: the condvar wait
    }
}

fn writer(ledger: Arc<Mutex<u64>>, sig: Arc<(Mutex<bool>, Condvar)>) {
    for round in 1..=3 {
        until_at_least(&GOT, round - 1); // not before the reader had it (no barging)
        let mut g = ledger.lock().unwrap();
        HELD.store(round, Ordering::SeqCst);
        until_at_least(&TRIED, round);
        until_asleep(READER_TID.load(Ordering::SeqCst));
        thread::sleep(Duration::from_millis(30));
        *g += 1;
    }
    until_at_least(&TRIED, 4);
    until_asleep(READER_TID.load(Ordering::SeqCst));
    *sig.0.lock().unwrap() = true;
    sig.1.notify_one();
}

fn reader(ledger: Arc<Mutex<u64>>, sig: Arc<(Mutex<bool>, Condvar)>) {
    READER_TID.store(tid(), Ordering::SeqCst);
    for round in 1..=3 {
        until_at_least(&HELD, round);
        TRIED.store(round, Ordering::SeqCst);
        wait_ledger(&ledger);
        GOT.store(round, Ordering::SeqCst);
    }
    TRIED.store(4, Ordering::SeqCst);
    wait_signal(&sig);
}

fn main() {
    let ledger = Arc::new(Mutex::new(0u64));
    let sig = Arc::new((Mutex::new(false), Condvar::new()));
    let (l1, s1) = (ledger.clone(), sig.clone());
    let (l2, s2) = (ledger.clone(), sig.clone());
    let w = thread::Builder::new().name("ledger_writer".into()).spawn(move || writer(l1, s1));
    let r = thread::Builder::new().name("ledger_reader".into()).spawn(move || reader(l2, s2));
    w.unwrap().join().unwrap();
    r.unwrap().join().unwrap();
    assert_eq!(*ledger.lock().unwrap(), 6);
    println!("ok");
}
