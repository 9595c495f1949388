// goprog writes a Go 1.23 execution trace of a small known workload, for the decoder tests
// and benchmarks: `goprog MODE OUT.trace [ARG]`. Modes: mutex (one goroutine holds a mutex
// for 20 ms while another waits), chan (ping-pong over channels), syscall (pipe reads and
// writes), mixed (all of them plus GC), pingpong N (N goroutine pairs ping-ponging for ARG ms).
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/trace"
	"strconv"
	"sync"
	"time"
)

func mutexWait() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	held := make(chan struct{})
	mu.Lock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		close(held)
		mu.Lock() // waits about 20 ms
		mu.Unlock()
	}()
	<-held
	time.Sleep(20 * time.Millisecond)
	mu.Unlock()
	wg.Wait()
}

func chanPingPong(n int) {
	a, b := make(chan int), make(chan int)
	done := make(chan struct{})
	go func() {
		for v := range a {
			b <- v + 1
		}
		close(done)
	}()
	for i := 0; i < n; i++ {
		a <- i
		<-b
	}
	close(a)
	<-done
}

func syscalls(n int) {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	buf := make([]byte, 64)
	for i := 0; i < n; i++ {
		w.Write(buf)
		r.Read(buf)
	}
	r.Close()
	w.Close()
}

func pingpong(pairs int, d time.Duration) {
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	for p := 0; p < pairs; p++ {
		a, b := make(chan int), make(chan int)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for v := range a {
				b <- v
			}
			close(b)
		}()
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				a <- i
				<-b
			}
			close(a)
		}()
	}
	wg.Wait()
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goprog mutex|chan|syscall|mixed|pingpong OUT [ARG]")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	switch os.Args[1] {
	case "mutex":
		mutexWait()
	case "chan":
		chanPingPong(200)
	case "syscall":
		syscalls(200)
	case "mixed":
		mutexWait()
		chanPingPong(100)
		syscalls(100)
		runtime.GC()
	case "pingpong":
		ms := 1000
		if len(os.Args) > 3 {
			ms, _ = strconv.Atoi(os.Args[3])
		}
		pingpong(runtime.GOMAXPROCS(0)*4, time.Duration(ms)*time.Millisecond)
	}
	trace.Stop()
	f.Close()
}
