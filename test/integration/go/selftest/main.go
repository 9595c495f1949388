// selftest: a Go program whose runtime trace has known counts, used by the harness
// self-test (cases/harness_selftest.sh) to prove lib.sh's counting helpers.
// Usage: selftest OUT.trace DURATION. Known facts: main creates 8 goroutines running
// main.worker, each ends once; main blocks (reason "sync") in wg.Wait and in a mutex Lock;
// the trace lasts at least DURATION.
package main

import (
	"os"
	"runtime/trace"
	"sync"
	"time"
)

func spin(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
	}
}

func worker(wg *sync.WaitGroup) {
	defer wg.Done()
	spin(20 * time.Millisecond)
}

func main() {
	d, err := time.ParseDuration(os.Args[2])
	if err != nil {
		panic(err)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go worker(&wg)
	}
	wg.Wait()
	var mu sync.Mutex
	mu.Lock()
	go func() { time.Sleep(50 * time.Millisecond); mu.Unlock() }()
	mu.Lock()
	spin(d)
	trace.Stop()
	f.Close()
}
