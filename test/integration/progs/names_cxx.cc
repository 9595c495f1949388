// names_cxx: std::thread workers, whose start routine is libstdc++'s trampoline: one runs a
// function in a namespace, one a lambda; each sleeps 2 ms (a wait with the worker's stack).
// Prints "ok".
#include <chrono>
#include <cstdio>
#include <thread>

namespace app
{
void worker(int k)
{
    std::this_thread::sleep_for(std::chrono::milliseconds(2 + k)); // names_cxx: function
}
} // namespace app

int main()
{
    std::thread a(app::worker, 0);
    std::thread b([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2)); // names_cxx: lambda
    });
    a.join();
    b.join();
    std::puts("ok");
}
