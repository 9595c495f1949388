// sync_cxx: the C++ standard library's primitives, traced through the pthreads functions they
// call. main holds a std::mutex for 20 ms while 3 threads wait for it (std::mutex); holds a
// std::shared_mutex exclusively for 20 ms while 2 readers wait (std::shared_mutex); plays 50
// ping-pong hand-offs with a std::condition_variable; sleeps with std::this_thread::sleep_for.
// Prints "ok" when every count is right.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

static std::mutex mu;
static std::shared_mutex smu;
static std::condition_variable cv;
static int turn, counter, reads;

static void locker()
{
    std::lock_guard<std::mutex> g(mu);
    counter++;
}

static void shared_reader()
{
    std::shared_lock<std::shared_mutex> g(smu);
    std::lock_guard<std::mutex> c(mu);
    reads++;
}

static void player(int me)
{
    std::unique_lock<std::mutex> g(mu);
    for (int i = 0; i < 50; i++) {
        cv.wait(g, [me] { return turn == me; });
        turn = 1 - me;
        cv.notify_one();
    }
}

int main()
{
    std::vector<std::thread> ts;
    {
        std::lock_guard<std::mutex> g(mu);
        for (int i = 0; i < 3; i++)
            ts.emplace_back(locker);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    {
        std::unique_lock<std::shared_mutex> g(smu);
        for (int i = 0; i < 2; i++)
            ts.emplace_back(shared_reader);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ts.emplace_back(player, 0);
    ts.emplace_back(player, 1);
    for (auto &t : ts)
        t.join();
    if (counter != 3 || reads != 2) return 1;
    std::puts("ok");
    return 0;
}
