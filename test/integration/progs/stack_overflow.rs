// stack_overflow [thread]: sleeps 2 ms (a traced wait), then recurses until its stack overflows,
// on the main thread or (thread) on a spawned one named "deep". Rust's runtime catches the
// fault on the thread's alternate signal stack (8 KiB), prints "thread '...' has overflowed its
// stack" from there, and aborts: status 134.
fn rec(n: u64) -> u64 {
    let a = [n; 64];
    if n == 0 {
        0
    } else {
        a[(n % 64) as usize] + rec(n + 1)
    }
}

fn main() {
    std::thread::sleep(std::time::Duration::from_millis(2));
    if std::env::args().count() > 1 {
        let t = std::thread::Builder::new().name("deep".into()).spawn(|| rec(1)).unwrap();
        println!("{}", t.join().unwrap());
    } else {
        println!("{}", rec(1));
    }
}
