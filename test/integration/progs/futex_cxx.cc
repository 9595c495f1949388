// futex_cxx.cc: C++20 waits, which libstdc++ makes with syscall(SYS_futex): a thread waits
// 200 ms in each of std::counting_semaphore::acquire, std::latch::wait, std::barrier's
// arrive_and_wait and std::atomic<int>::wait, released by main after 200 ms each (they meet
// first through an atomic flag, nothing traced). Prints "ok".
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <latch>
#include <semaphore>
#include <thread>

static std::atomic<int> phase{0}, value{0};
static std::counting_semaphore<4> sem{0};
static std::latch gate{1};
static std::barrier<> meet{2};

static void arrive(int p)
{
    phase.store(p);
}

static void cxx_waiter()
{
    arrive(1);
    sem.acquire(); // known wait 1
    arrive(2);
    gate.wait(); // known wait 2
    arrive(3);
    meet.arrive_and_wait(); // known wait 3
    arrive(4);
    value.wait(0); // known wait 4
}

static void release_after(int p)
{
    while (phase.load() < p)
        std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

int main()
{
    std::thread t(cxx_waiter);
    release_after(1);
    sem.release();
    release_after(2);
    gate.count_down();
    release_after(3);
    meet.arrive_and_wait();
    release_after(4);
    value.store(1);
    value.notify_one();
    t.join();
    std::puts("ok");
    return 0;
}
