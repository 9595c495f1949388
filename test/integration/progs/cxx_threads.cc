// cxx_threads: four std::thread workers, each sums a range into its slot; main joins them and
// prints the total (the C++ path of the harness: std::thread sits on pthread_create).
#include <cstdio>
#include <thread>
#include <vector>

int main()
{
    std::vector<long> sums(4);
    std::vector<std::thread> ts;
    for (int k = 0; k < 4; k++)
        ts.emplace_back([&sums, k] {
            for (long i = 0; i < 1000000; i++)
                sums[k] += i % (k + 2);
        });
    for (auto &t : ts)
        t.join();
    long total = 0;
    for (long s : sums)
        total += s;
    std::printf("total=%ld\n", total);
    return 0;
}
