// cxx_locks.cc: a C++ std::mutex inside a heap object, its holder known by design: the thread
// bank_holder takes it and keeps it until the waiter, told by an atomic that it is held, is
// asleep in the kernel (its /proc/self/task/TID/stat state is S), then 30 ms more; the waiter
// waits for it in wait_bank. The object is named by wait_bank's line (not by libstdc++'s
// __gthread_mutex_lock or std::mutex::lock, inlined there). Prints "ok".
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

struct Bank {
    std::mutex mu;
    long balance = 0;
};

static std::atomic<int> held{0}, waiter_tid{0};

static void until_asleep(int tid)
{
    char path[64], stat[512];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    for (;;) {
        FILE *f = std::fopen(path, "r");
        size_t n = f ? std::fread(stat, 1, sizeof stat - 1, f) : 0;
        if (f) std::fclose(f);
        stat[n] = 0;
        const char *p = std::strrchr(stat, ')');
        if (p && p[1] == ' ' && p[2] == 'S') return;
        std::this_thread::yield();
    }
}

__attribute__((noinline)) static void wait_bank(Bank *b)
{
    std::lock_guard<std::mutex> g(b->mu); // cxx_locks: the known wait
    b->balance++;
}

int main()
{
    Bank *b = new Bank;
    std::thread holder([b] {
        pthread_setname_np(pthread_self(), "bank_holder");
        std::lock_guard<std::mutex> g(b->mu);
        held = 1;
        while (!waiter_tid)
            std::this_thread::yield();
        until_asleep(waiter_tid);
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        b->balance++;
    });
    std::thread waiter([b] {
        while (!held)
            std::this_thread::yield();
        waiter_tid = (int)syscall(SYS_gettid);
        wait_bank(b);
    });
    holder.join();
    waiter.join();
    std::puts(b->balance == 2 ? "ok" : "wrong balance");
    delete b;
    return 0;
}
