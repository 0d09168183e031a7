package listen_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/audio/audiotest"
	"github.com/spirit-app/spirit/voice/listen"
)

// TestBenchListenIdleCPU measures what listening to a silent room costs:
// the Listener on the JACK dummy sound card (a real, real-time device,
// through Capture and its helper process) for 60 s, as a percentage of one
// core, from the kernel's CPU accounting of this process and the helper.
// Without jackd it falls back to a paced silent file and says so.
func TestBenchListenIdleCPU(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("SPIRIT_BENCH=1 runs benchmarks")
	}
	const window = 60 * time.Second
	var src audio.Source
	var helper atomic.Pointer[audio.HelperSource]
	statuses := make(chan audio.Status, 10)
	mode := "jack"
	if _, err := exec.LookPath("jackd"); err == nil {
		audiotest.StartJack(t)
		src = &audio.Capture{
			NewSource: func() audio.Source {
				h := &audio.HelperSource{Device: "system", ClientName: "spirit-bench"}
				helper.Store(h)
				return h
			},
			OnStatus: func(s audio.Status) { statuses <- s },
		}
	} else {
		if os.Getenv("SPIRIT_REQUIRE_DESKTOP") == "1" {
			t.Fatal("jackd not installed (apt install jackd2); SPIRIT_REQUIRE_DESKTOP=1 wants the honest figure")
		}
		t.Log("jackd not installed: measuring on a paced silent file instead of a real device")
		mode = "paced-file"
		path := wavFile(t, make([]float32, int(window.Seconds()+5)*audio.SampleRate))
		src = &audio.WAVSource{Path: path, Paced: true}
	}
	helperPID := func() int {
		if h := helper.Load(); h != nil {
			return h.HelperPID()
		}
		return 0
	}
	tr := &fakeTranscriber{}
	l := &listen.Listener{Source: src, Transcriber: tr}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	if mode == "jack" {
		audiotest.WaitStatus(t, statuses, audio.Listening, deadline)
	}
	// Let the device settle, then measure.
	audiotest.WaitUntil(t, func() bool { return l.Position() > 2*time.Second }, deadline)
	pid := helperPID()
	self0, child0 := selfCPU(t), procCPU(pid)
	pos0, start := l.Position(), time.Now()
	timer := time.NewTimer(window)
	<-timer.C
	self1, child1 := selfCPU(t), procCPU(pid)
	wall, audioRead := time.Since(start), l.Position()-pos0
	if pid != 0 && helperPID() != pid {
		t.Fatal("the capture helper was replaced during the window")
	}
	cpu := (self1 - self0) + (child1 - child0)
	pct := 100 * cpu.Seconds() / wall.Seconds()
	t.Logf("%s: %v of audio in %v; CPU: listener %v, helper %v; %d transcriptions",
		mode, audioRead.Round(time.Millisecond), wall.Round(time.Millisecond), self1-self0, child1-child0, len(tr.Lengths()))
	if len(tr.Lengths()) != 0 {
		t.Errorf("silence was transcribed %d times", len(tr.Lengths()))
	}
	// The dummy driver paces itself with sleeps: on a loaded machine it
	// runs slow, which is not the pipeline's doing.
	if audioRead < window/2 {
		t.Errorf("only %v of audio flowed in %v", audioRead, wall)
	}
	fmt.Printf("BENCH listen_idle_cpu_pct %.3f %%\n", pct)
}

// selfCPU is this process's user+system CPU time (getrusage).
func selfCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is another live process's user+system CPU time, from /proc.
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields overall, in clock ticks (100 per second on Linux).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
