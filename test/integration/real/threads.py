# threads.py: a python3 program using threading: 4 threads hash slices of generated data,
# guarded by a Lock and a Condition; prints the combined digest.
import hashlib, threading

data = bytes((i * 7919) & 0xff for i in range(4 << 20))
lock, cond, results = threading.Lock(), threading.Condition(), {}

def work(k):
    h = hashlib.sha256(data[k::4]).hexdigest()
    with cond:
        results[k] = h
        cond.notify_all()

ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in ts: t.start()
with cond:
    cond.wait_for(lambda: len(results) == 4)
for t in ts: t.join()
print(hashlib.sha256("".join(results[k] for k in range(4)).encode()).hexdigest())
