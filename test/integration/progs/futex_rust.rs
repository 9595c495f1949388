// futex_rust.rs: Rust's std waits (futex-based since Rust 1.62): a thread waits 200 ms in each
// of Mutex::lock (contended), Condvar::wait, mpsc Receiver::recv and RwLock::write, released by
// main after 200 ms each (they meet first through an atomic, nothing traced). Prints "ok".
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread;
use std::time::Duration;

static PHASE: AtomicUsize = AtomicUsize::new(0);

fn release_after(p: usize) {
    while PHASE.load(Ordering::SeqCst) < p {
        thread::yield_now();
    }
    thread::sleep(Duration::from_millis(200));
}

fn main() {
    let m = Arc::new(Mutex::new(0));
    let cv = Arc::new((Mutex::new(false), Condvar::new()));
    let rw = Arc::new(RwLock::new(0));
    let (tx, rx) = mpsc::channel::<u32>();
    let held = m.lock().unwrap();
    let rheld = rw.read().unwrap();
    let (m2, cv2, rw2) = (m.clone(), cv.clone(), rw.clone());
    let t = thread::spawn(move || {
        PHASE.store(1, Ordering::SeqCst);
        drop(m2.lock().unwrap()); // known wait 1
        PHASE.store(2, Ordering::SeqCst);
        let (lock, cond) = &*cv2;
        let mut done = lock.lock().unwrap();
        while !*done {
            done = cond.wait(done).unwrap(); // known wait 2
        }
        drop(done);
        PHASE.store(3, Ordering::SeqCst);
        rx.recv().unwrap(); // known wait 3
        PHASE.store(4, Ordering::SeqCst);
        drop(rw2.write().unwrap()); // known wait 4
    });
    release_after(1);
    drop(held);
    release_after(2);
    {
        let (lock, cond) = &*cv;
        *lock.lock().unwrap() = true;
        cond.notify_one();
    }
    release_after(3);
    tx.send(1).unwrap();
    release_after(4);
    drop(rheld);
    t.join().unwrap();
    println!("ok");
}
