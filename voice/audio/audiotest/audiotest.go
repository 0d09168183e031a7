// Package audiotest holds test fixtures for Spirit's audio packages: speech
// made with espeak-ng, WAV files, noise, a JACK dummy server that stands in
// for a sound card, and a player that feeds audio into it. Only tests import
// it.
package audiotest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spirit-app/spirit/voice/audio"
)

// Main runs a test binary's tests, or the audio capture helper when the
// binary was started as one (HelperSource re-executes the test binary).
// Use it as TestMain:
//
//	func TestMain(m *testing.M) { audiotest.Main(m) }
func Main(m *testing.M) {
	ServeHelpers()
	os.Exit(m.Run())
}

// ServeHelpers runs the audio capture helper or the JACK player, and
// exits, when the test binary was started as one; otherwise it returns at
// once. It is Main's first half, for a TestMain that runs its tests its
// own way (under goleak, say):
//
//	func TestMain(m *testing.M) { audiotest.ServeHelpers(); goleak.VerifyTestMain(m) }
func ServeHelpers() {
	if audio.IsHelper() {
		os.Exit(audio.RunHelper())
	}
	if r := os.Getenv(playerEnv); r != "" {
		rate, _ := strconv.Atoi(r)
		os.Exit(runPlayer(rate))
	}
}

// RequireTools skips the test when a command is missing, or fails it when
// SPIRIT_REQUIRE_DESKTOP=1 (make test sets it: there a missing tool is a
// broken machine, not an optional feature).
func RequireTools(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			msg := fmt.Sprintf("%s not installed (apt install jackd2 espeak-ng sox portaudio19-dev)", tool)
			if os.Getenv("SPIRIT_REQUIRE_DESKTOP") == "1" {
				t.Fatal(msg + "; SPIRIT_REQUIRE_DESKTOP=1 makes this a failure")
			}
			t.Skip(msg)
		}
	}
}

// Speak renders text with espeak-ng and converts it with sox to 16 kHz mono
// 16-bit, exactly as a developer would by hand, and returns the samples.
func Speak(t testing.TB, text string) []float32 {
	t.Helper()
	RequireTools(t, "espeak-ng", "sox")
	dir := t.TempDir()
	raw, wav := filepath.Join(dir, "out.wav"), filepath.Join(dir, "speech.wav")
	run(t, "espeak-ng", "-w", raw, text)
	run(t, "sox", raw, "-r", "16000", "-c", "1", "-b", "16", wav)
	x, err := audio.ReadWAVFile(wav)
	if err != nil {
		t.Fatalf("read espeak output: %v", err)
	}
	return x
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// SilenceThreshold is the absolute amplitude above which a sample of clean
// synthetic speech counts as sound: about -54 dBFS, above sox's dither.
const SilenceThreshold = 0.002

// Extent returns the indices of the first and last samples louder than
// SilenceThreshold, or -1, -1 for silence.
func Extent(x []float32) (first, last int) {
	first, last = -1, -1
	for i, v := range x {
		if v > SilenceThreshold || v < -SilenceThreshold {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// Interval is a span of a stream, as offsets from its start.
type Interval struct{ Start, End time.Duration }

func (iv Interval) String() string {
	return fmt.Sprintf("[%v, %v]", iv.Start.Round(time.Millisecond), iv.End.Round(time.Millisecond))
}

// Segment is a stretch of silence followed by a clip.
type Segment struct {
	Gap  time.Duration
	Clip []float32
}

// Compose lays out segments and trailing silence, and returns the stream and
// the true extent of the sound in each clip (Extent of the clip itself,
// shifted to where the clip was placed).
func Compose(segs []Segment, tail time.Duration) ([]float32, []Interval) {
	var x []float32
	var truth []Interval
	for _, s := range segs {
		x = append(x, make([]float32, audio.Samples(s.Gap))...)
		if first, last := Extent(s.Clip); first >= 0 {
			base := int64(len(x))
			truth = append(truth, Interval{audio.Duration(base + int64(first)), audio.Duration(base + int64(last) + 1)})
		}
		x = append(x, s.Clip...)
	}
	x = append(x, make([]float32, audio.Samples(tail))...)
	return x, truth
}

// AddNoise adds white Gaussian noise with an RMS of dbfs (e.g. -50) to x,
// from a fixed seed so tests are repeatable.
func AddNoise(x []float32, dbfs float64, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	sigma := math.Pow(10, dbfs/20)
	for i := range x {
		x[i] += float32(r.NormFloat64() * sigma)
	}
}

// WriteWAV writes mono 16-bit PCM. Only tests write audio to disk.
func WriteWAV(path string, x []float32, rate int) error {
	var b bytes.Buffer
	n := uint32(2 * len(x))
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, 36+n)
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(2 * rate), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, n)
	for _, v := range x {
		s := math.Round(float64(v) * 32767)
		s = max(-32768, min(32767, s))
		binary.Write(&b, binary.LittleEndian, int16(s))
	}
	return os.WriteFile(path, b.Bytes(), 0o600)
}

var jackSeq atomic.Int64

// Jack is a JACK server with the dummy driver at 16 kHz: a real, real-time
// paced sound card with nothing behind it. It runs without realtime
// scheduling (-r) so it works as root in a container.
type Jack struct {
	Name string
	Rate int // Hz
	t    testing.TB
	cmd  *exec.Cmd
	done chan struct{}
	log  *bytes.Buffer
}

// StartJack starts a private 16 kHz JACK server and points this process and
// its children at it (JACK_DEFAULT_SERVER). It is stopped when the test ends.
func StartJack(t testing.TB) *Jack { return StartJackRate(t, 16000) }

// StartJackRate is StartJack at another sample rate.
func StartJackRate(t testing.TB, rate int) *Jack {
	t.Helper()
	RequireTools(t, "jackd", "jack_wait", "jack_lsp", "jack_connect")
	j := &Jack{Name: fmt.Sprintf("spirit-test-%d-%d", os.Getpid(), jackSeq.Add(1)), Rate: rate, t: t}
	t.Setenv("JACK_DEFAULT_SERVER", j.Name)
	t.Setenv("JACK_NO_START_SERVER", "1")
	t.Cleanup(j.Stop)
	j.Start()
	return j
}

// Start starts the server (again) and waits until clients can connect.
func (j *Jack) Start() {
	j.t.Helper()
	if j.cmd != nil {
		j.t.Fatal("jackd already running")
	}
	j.log = &bytes.Buffer{}
	cmd := exec.Command("jackd", "-n", j.Name, "-r", "-d", "dummy", "-r", fmt.Sprint(j.Rate), "-p", "1024")
	cmd.Stdout, cmd.Stderr = j.log, j.log
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		j.t.Fatalf("start jackd: %v", err)
	}
	j.cmd, j.done = cmd, make(chan struct{})
	go func(done chan struct{}) {
		cmd.Wait()
		close(done)
	}(j.done)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "jack_wait", "-s", j.Name, "-w", "-t", "15").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "running") {
		j.Stop()
		j.t.Fatalf("jackd did not come up: %v\n%s\njackd: %s", err, out, j.log)
	}
}

// Stop terminates the server ("unplugs" the sound card) and waits for it.
func (j *Jack) Stop() {
	if j.cmd == nil {
		return
	}
	j.cmd.Process.Signal(os.Interrupt)
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-j.done:
	case <-t.C:
		j.cmd.Process.Kill()
		<-j.done
	}
	j.cmd = nil
}

// Ports lists the server's ports.
func (j *Jack) Ports() []string {
	j.t.Helper()
	// jack_lsp failed once on a loaded machine with only "exit status 1"
	// while the server ran on: ask again before failing, and show what
	// it said on stderr.
	var errs []string
	for try := 0; try < 2; try++ {
		cmd := exec.Command("jack_lsp", "-s", j.Name)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err == nil {
			return strings.Fields(string(out))
		}
		errs = append(errs, fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String())))
	}
	j.t.Fatalf("jack_lsp failed twice: %s", strings.Join(errs, "; "))
	return nil
}

// PortsOf lists the ports of clients whose name starts with prefix.
func (j *Jack) PortsOf(prefix string) []string {
	var ps []string
	for _, p := range j.Ports() {
		if strings.HasPrefix(p, prefix) {
			ps = append(ps, p)
		}
	}
	return ps
}

// Connect connects an output port to an input port.
func (j *Jack) Connect(from, to string) {
	j.t.Helper()
	if out, err := exec.Command("jack_connect", "-s", j.Name, from, to).CombinedOutput(); err != nil {
		j.t.Fatalf("jack_connect %s %s: %v\n%s", from, to, err, out)
	}
}

// WaitStatus reads ch until a status in state want arrives and returns
// it, logging the others; t fails if none comes within d.
func WaitStatus(t testing.TB, ch <-chan audio.Status, want audio.State, d time.Duration) audio.Status {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case s := <-ch:
			if s.State == want {
				return s
			}
			t.Logf("status %q: %s", s.State, s.Detail)
		case <-timeout:
			t.Fatalf("no %q status within %v", want, d)
		}
	}
}

// WaitUntil checks cond on a ticker until it holds; t fails if it does
// not within d.
func WaitUntil(t testing.TB, cond func() bool, d time.Duration) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(d)
	for !cond() {
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatal("condition not met within deadline")
		}
	}
}
