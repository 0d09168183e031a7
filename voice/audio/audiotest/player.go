package audiotest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gordonklaus/portaudio"
)

// playerEnv makes a test binary a Player child (see Main); its value is the
// sample rate.
const playerEnv = "SPIRIT_AUDIOTEST_PLAYER"

// Player plays audio into a JACK server through a PortAudio output stream
// in a child process (the test binary again), so that the test process
// itself never holds a PortAudio stream: a stream whose server dies cannot
// be closed for minutes (see voice/audio/helper.go), and under -race only
// one stream per process is possible (see InSubprocess). Connect Port to a capture port for a
// sample-exact loop.
type Player struct {
	Port string // the JACK output port

	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	done  []chan struct{}
	exit  chan struct{}
}

// NewPlayer starts a mono player on jack's "system" device at the server's
// rate, playing silence until Play. It is closed when the test ends.
func NewPlayer(t testing.TB, j *Jack) *Player {
	t.Helper()
	before := j.Ports()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), playerEnv+"="+strconv.Itoa(j.Rate))
	cmd.Stderr = io.Discard // ALSA's probing noise
	dieWithParent(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start player: %v", err)
	}
	p := &Player{cmd: cmd, stdin: stdin, exit: make(chan struct{})}
	t.Cleanup(p.Close)
	lines := bufio.NewScanner(stdout)
	ready := make(chan string, 1)
	go func() {
		defer close(p.exit)
		for lines.Scan() {
			switch l := lines.Text(); {
			case strings.HasPrefix(l, "ready") || strings.HasPrefix(l, "error"):
				ready <- l
			case l == "played":
				p.mu.Lock()
				if len(p.done) > 0 {
					close(p.done[0])
					p.done = p.done[1:]
				}
				p.mu.Unlock()
			}
		}
		cmd.Wait()
	}()
	select {
	case l := <-ready:
		if l != "ready" {
			t.Fatalf("player: %s", l)
		}
	case <-p.exit:
		t.Fatal("player exited before opening its stream")
	case <-time.After(20 * time.Second):
		t.Fatal("player did not start")
	}
	for _, port := range j.Ports() {
		if !slices.Contains(before, port) && strings.Contains(port, ":out_") {
			p.Port = port
		}
	}
	if p.Port == "" {
		t.Fatal("player's JACK port not found")
	}
	return p
}

// Play queues x, at the server's rate, and returns a channel closed when
// its last sample has been handed to JACK.
func (p *Player) Play(x []float32) <-chan struct{} {
	done := make(chan struct{})
	b := make([]byte, 4+4*len(x))
	binary.LittleEndian.PutUint32(b, uint32(len(x)))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4+4*i:], math.Float32bits(v))
	}
	p.mu.Lock()
	p.done = append(p.done, done)
	p.mu.Unlock()
	p.stdin.Write(b) // the child reads as fast as we write
	return done
}

// Close stops the player and waits for it to exit.
func (p *Player) Close() {
	if p.cmd == nil {
		return
	}
	p.stdin.Close()
	select {
	case <-p.exit:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.exit
	}
	p.cmd = nil
}

// runPlayer is the child side of Player.
func runPlayer(rate int) int {
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, a ...any) {
		fmt.Fprintf(out, format+"\n", a...)
		out.Flush()
	}
	if err := portaudio.Initialize(); err != nil {
		say("error %v", err)
		return 1
	}
	devs, err := portaudio.Devices()
	if err != nil {
		say("error %v", err)
		return 1
	}
	var dev *portaudio.DeviceInfo
	for _, d := range devs {
		if d.Name == "system" && d.MaxOutputChannels > 0 {
			dev = d
		}
	}
	if dev == nil {
		say("error no JACK system output among %d devices", len(devs))
		return 1
	}
	var mu sync.Mutex
	var queue [][]float32 // clips still to play; the first may be partly played
	played := make(chan struct{}, 64)
	params := portaudio.HighLatencyParameters(nil, dev)
	params.Output.Channels = 1
	params.SampleRate = float64(rate)
	stream, err := portaudio.OpenStream(params, func(out []float32) {
		mu.Lock()
		defer mu.Unlock()
		for len(out) > 0 && len(queue) > 0 {
			n := copy(out, queue[0])
			out, queue[0] = out[n:], queue[0][n:]
			if len(queue[0]) == 0 {
				queue = queue[1:]
				played <- struct{}{}
			}
		}
		clear(out)
	})
	if err != nil {
		say("error %v", err)
		return 1
	}
	if err := stream.Start(); err != nil {
		say("error %v", err)
		return 1
	}
	go func() {
		for range played {
			say("played")
		}
	}()
	say("ready")
	in := bufio.NewReader(os.Stdin)
	for {
		var n uint32
		if err := binary.Read(in, binary.LittleEndian, &n); err != nil {
			break
		}
		x := make([]float32, n)
		if err := binary.Read(in, binary.LittleEndian, x); err != nil {
			break
		}
		mu.Lock()
		queue = append(queue, x)
		mu.Unlock()
	}
	stream.Close()
	portaudio.Terminate()
	return 0
}
