package audio_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/audio/audiotest"
)

func TestMain(m *testing.M) { audiotest.Main(m) }

const deadline = 20 * time.Second

func TestPortAudioNamedDeviceMissing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s := &audio.PortAudioSource{Device: "no such microphone 7f3a"}
	err := s.Open(ctx)
	if !errors.Is(err, audio.ErrNoDevice) || !strings.Contains(err.Error(), "no such microphone 7f3a") {
		t.Fatalf("Open = %v; want ErrNoDevice naming the device", err)
	}
}

// TestPortAudioJACK captures in process from a JACK dummy server: a real,
// real-time paced device.
func TestPortAudioJACK(t *testing.T) {
	if !audiotest.InSubprocess(t) {
		return
	}
	audiotest.StartJack(t)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	devs, err := audio.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(devs, func(d audio.Device) bool { return d.Name == "system" })
	if i < 0 || !strings.Contains(devs[i].HostAPI, "JACK") || devs[i].SampleRate != 16000 {
		t.Fatalf("no JACK system input at 16 kHz in %+v", devs)
	}

	s := &audio.PortAudioSource{Device: "system"}
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if rate, ch := s.Format(); rate != 16000 || ch != 1 {
		t.Errorf("opened at %d Hz × %d channels, want 16000 × 1", rate, ch)
	}
	// The first buffer may come at once; from then on audio must arrive at
	// the device's pace, not faster.
	buf := make([]float32, 4096)
	if _, err := s.Read(ctx, buf); err != nil {
		t.Fatal(err)
	}
	start, got := time.Now(), 0
	for got < audio.SampleRate {
		n, err := s.Read(ctx, buf)
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
	if el := time.Since(start); el < 800*time.Millisecond || el > 2*time.Second {
		t.Errorf("1 s of audio took %v to arrive", el)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(ctx, buf); !errors.Is(err, audio.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
}

// TestCaptureJACKUnplug unplugs the sound card (stops jackd) under a
// running Capture and plugs it back in.
func TestCaptureJACKUnplug(t *testing.T) {
	jack := audiotest.StartJack(t)
	statuses := make(chan audio.Status, 100)
	var attempts atomic.Int64
	var helper atomic.Pointer[audio.HelperSource]
	c := &audio.Capture{
		NewSource: func() audio.Source {
			attempts.Add(1)
			h := &audio.HelperSource{Device: "system", ClientName: "spirit-test-capture", StallTimeout: time.Second}
			helper.Store(h)
			return h
		},
		OnStatus:   func(s audio.Status) { statuses <- s },
		MinBackoff: 100 * time.Millisecond,
		MaxBackoff: time.Second,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	audiotest.WaitStatus(t, statuses, audio.Listening, deadline)
	if ports := jack.PortsOf("spirit-test-capture:"); len(ports) != 1 {
		t.Errorf("capture ports %v, want one input", ports)
	}
	readSeconds(t, ctx, c, 0.5)

	jack.Stop()
	s := audiotest.WaitStatus(t, statuses, audio.DeviceLost, deadline)
	t.Logf("unplugged: %s", s.Detail)
	s = audiotest.WaitStatus(t, statuses, audio.NoMicrophone, deadline)
	t.Logf("while unplugged: %s", s.Detail)
	// Keep retrying: two more attempts, both failing, nothing crashing.
	n := attempts.Load()
	audiotest.WaitUntil(t, func() bool { return attempts.Load() >= n+2 }, deadline)
	if st := c.Status().State; st != audio.NoMicrophone {
		t.Errorf("state while unplugged: %q", st)
	}

	jack.Start()
	audiotest.WaitStatus(t, statuses, audio.Listening, deadline)
	if _, err := c.Read(ctx, make([]float32, 16)); !errors.Is(err, audio.ErrGap) {
		t.Errorf("first Read after replug: %v, want ErrGap", err)
	}
	readSeconds(t, ctx, c, 0.5)

	// Pause releases the device entirely: the helper exits and its JACK
	// client disappears.
	h := helper.Load()
	c.Pause()
	audiotest.WaitStatus(t, statuses, audio.Paused, deadline)
	if pid := h.HelperPID(); pid != 0 {
		t.Errorf("helper %d still running while paused", pid)
	}
	if ports := jack.PortsOf("spirit-test-capture:"); len(ports) != 0 {
		t.Errorf("capture ports %v still registered while paused", ports)
	}
	c.Resume()
	audiotest.WaitStatus(t, statuses, audio.Listening, deadline)
	if ports := jack.PortsOf("spirit-test-capture:"); len(ports) != 1 {
		t.Errorf("capture ports after Resume: %v", ports)
	}
	if _, err := c.Read(ctx, make([]float32, 16)); !errors.Is(err, audio.ErrGap) {
		t.Errorf("first Read after Resume: %v, want ErrGap", err)
	}
	readSeconds(t, ctx, c, 0.2)
}

func readSeconds(t *testing.T, ctx context.Context, s audio.Source, sec float64) {
	t.Helper()
	buf := make([]float32, 1024)
	for got := 0; got < int(sec*audio.SampleRate); {
		n, err := s.Read(ctx, buf)
		if err != nil {
			t.Fatalf("Read after %d samples: %v", got, err)
		}
		got += n
	}
}

// TestPortAudioJACK48k: a device that only runs at 48 kHz is captured at
// its rate and resampled; a tone played into it comes out as the same tone
// at 16 kHz, at the right level and length.
func TestPortAudioJACK48k(t *testing.T) {
	if !audiotest.InSubprocess(t) {
		return
	}
	jack := audiotest.StartJackRate(t, 48000)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s := &audio.PortAudioSource{Device: "system", ClientName: "spirit-48k"}
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if rate, ch := s.Format(); rate != 48000 || ch != 1 {
		t.Fatalf("opened at %d Hz × %d, want 48000 × 1", rate, ch)
	}
	p := audiotest.NewPlayer(t, jack)
	defer p.Close()
	jack.Connect(p.Port, "spirit-48k:in_0")
	const tone = 1000.0
	x := make([]float32, 48000) // 1 s
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*tone*float64(i)/48000))
	}
	p.Play(x)
	var got []float32
	buf := make([]float32, 1024)
	for len(got) < 3*audio.SampleRate {
		n, err := s.Read(ctx, buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	// Where the tone is, and what it is.
	loud, crossings := 0, 0
	var sum float64
	for i, v := range got {
		if math.Abs(float64(v)) > 0.05 {
			loud++
		}
		if i > 0 && (got[i-1] < 0) != (v < 0) && math.Abs(float64(v-got[i-1])) > 0.05 {
			crossings++
		}
		sum += float64(v) * float64(v)
	}
	rms := math.Sqrt(sum / float64(audio.SampleRate)) // over the tone's 1 s
	if loud < 14000 || loud > 16500 {
		t.Errorf("%d loud samples, want about 16000 × (1 - 2/π·asin(0.1)) ≈ 15000", loud)
	}
	if crossings < 1990 || crossings > 2010 {
		t.Errorf("%d zero crossings, want 2000 for 1 s of %v Hz", crossings, tone)
	}
	if math.Abs(rms-0.5/math.Sqrt2) > 0.01 {
		t.Errorf("tone RMS %.4f, want %.4f", rms, 0.5/math.Sqrt2)
	}
}

// TestPortAudioInProcessServerDeath documents why Capture uses a helper
// process: in process, a dead JACK server is detected (Read returns
// ErrDeviceLost within StallTimeout) but PortAudio 19.6 cannot close the
// stream for ten minutes. Close must still return, with an error, rather
// than hang Spirit. The stuck close keeps PortAudio busy in the process, so
// the test runs in a process of its own.
func TestPortAudioInProcessServerDeath(t *testing.T) {
	if !audiotest.InSubprocess(t) {
		return
	}
	jack := audiotest.StartJack(t)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s := &audio.PortAudioSource{Device: "system", StallTimeout: time.Second, CloseTimeout: time.Second}
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	readSeconds(t, ctx, s, 0.2)
	jack.Stop()
	start := time.Now()
	buf := make([]float32, 1024)
	var err error
	for err == nil {
		_, err = s.Read(ctx, buf)
	}
	if !errors.Is(err, audio.ErrDeviceLost) {
		t.Fatalf("Read after the server died: %v, want ErrDeviceLost", err)
	}
	t.Logf("loss detected after %v: %v", time.Since(start).Round(time.Millisecond), err)
	start = time.Now()
	err = s.Close()
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Close took %v", el)
	}
	t.Logf("Close: %v", err)
}
