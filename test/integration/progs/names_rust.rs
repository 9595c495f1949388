// names_rust: a Rust std thread (its start routine is std's thread_start) running a closure
// that calls a function which sleeps 5 ms (a wait with the worker's stack); main joins.
// Prints "ok".
use std::thread;
use std::time::Duration;

fn work(ms: u64) {
    thread::sleep(Duration::from_millis(ms)); // names_rust: the worker's sleep
}

fn main() {
    let w = thread::spawn(move || work(5));
    w.join().unwrap();
    println!("ok");
}
