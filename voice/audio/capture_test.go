package audio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// fakeSource is a device the test scripts: Open fails with openErr, Read
// returns what the test sends on reads.
type fakeSource struct {
	id      int
	openErr error
	reads   chan fakeRead
	closed  chan struct{}
	once    sync.Once
}

type fakeRead struct {
	samples []float32
	err     error
}

func newFake(id int, openErr error) *fakeSource {
	return &fakeSource{id: id, openErr: openErr, reads: make(chan fakeRead), closed: make(chan struct{})}
}

func (f *fakeSource) Open(ctx context.Context) error { return f.openErr }
func (f *fakeSource) Name() string                   { return fmt.Sprintf("fake%d", f.id) }
func (f *fakeSource) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}
func (f *fakeSource) Read(ctx context.Context, buf []float32) (int, error) {
	select {
	case r := <-f.reads:
		if r.err != nil {
			return 0, r.err
		}
		return copy(buf, r.samples), nil
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-f.closed:
		return 0, ErrClosed
	}
}

// deadline bounds every wait in these tests; nothing sleeps.
const deadline = 5 * time.Second

func waitStatus(t *testing.T, ch <-chan Status, want State) Status {
	t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case s := <-ch:
			if s.State == want {
				return s
			}
		case <-timeout:
			t.Fatalf("no %q status within %v", want, deadline)
		}
	}
}

func readOnce(t *testing.T, c *Capture) ([]float32, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	buf := make([]float32, 64)
	n, err := c.Read(ctx, buf)
	return buf[:n], err
}

func TestCaptureSupervises(t *testing.T) {
	fakes := make(chan *fakeSource)
	stop := make(chan struct{})
	statuses := make(chan Status, 100)
	c := &Capture{
		NewSource: func() Source {
			select {
			case f := <-fakes:
				return f
			case <-stop:
				return newFake(-1, ErrNoDevice)
			}
		},
		OnStatus:   func(s Status) { statuses <- s },
		MinBackoff: time.Millisecond,
		MaxBackoff: 4 * time.Millisecond,
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(stop)
		c.Close()
		if _, err := readOnce(t, c); !errors.Is(err, ErrClosed) {
			t.Errorf("Read after Close: %v, want ErrClosed", err)
		}
	}()

	// No microphone: reported, and retried.
	fakes <- newFake(1, fmt.Errorf("nothing plugged in: %w", ErrNoDevice))
	s := waitStatus(t, statuses, NoMicrophone)
	if !errors.Is(s.Err, ErrNoDevice) || s.Retry != time.Millisecond {
		t.Errorf("status %+v; want ErrNoDevice, retry 1ms", s)
	}
	fakes <- newFake(2, fmt.Errorf("still nothing: %w", ErrNoDevice))
	// A microphone appears.
	dev := newFake(3, nil)
	fakes <- dev
	waitStatus(t, statuses, Listening)
	go func() { dev.reads <- fakeRead{samples: []float32{1, 2, 3}} }()
	if got, err := readOnce(t, c); err != nil || len(got) != 3 || got[2] != 3 {
		t.Fatalf("Read = %v, %v; want [1 2 3]", got, err)
	}

	// It dies: reported, closed, replaced; the reader is told of the gap.
	go func() { dev.reads <- fakeRead{err: fmt.Errorf("unplugged: %w", ErrDeviceLost)} }()
	s = waitStatus(t, statuses, DeviceLost)
	if !errors.Is(s.Err, ErrDeviceLost) {
		t.Errorf("status %+v; want ErrDeviceLost", s)
	}
	<-dev.closed
	dev2 := newFake(4, nil)
	fakes <- dev2
	waitStatus(t, statuses, Listening)
	go func() { dev2.reads <- fakeRead{samples: []float32{4}} }()
	if _, err := readOnce(t, c); !errors.Is(err, ErrGap) {
		t.Fatalf("first Read after reopening: %v, want ErrGap", err)
	}
	if got, err := readOnce(t, c); err != nil || len(got) != 1 || got[0] != 4 {
		t.Fatalf("Read = %v, %v; want [4]", got, err)
	}

	// Pause closes the device before returning; Resume opens a new one.
	c.Pause()
	select {
	case <-dev2.closed:
	default:
		t.Fatal("Pause returned with the device still open")
	}
	waitStatus(t, statuses, Paused)
	if c.Status().State != Paused {
		t.Errorf("Status() = %+v", c.Status())
	}
	dev3 := newFake(5, nil)
	c.Resume()
	fakes <- dev3
	waitStatus(t, statuses, Listening)
	go func() { dev3.reads <- fakeRead{samples: []float32{5}} }()
	if _, err := readOnce(t, c); !errors.Is(err, ErrGap) {
		t.Fatalf("first Read after Resume: %v, want ErrGap", err)
	}
	if got, err := readOnce(t, c); err != nil || got[0] != 5 {
		t.Fatalf("Read = %v, %v; want [5]", got, err)
	}
}

func TestCapturePauseWhileRetrying(t *testing.T) {
	statuses := make(chan Status, 100)
	var mu sync.Mutex
	opens := 0
	c := &Capture{
		NewSource: func() Source {
			mu.Lock()
			defer mu.Unlock()
			opens++
			return newFake(opens, ErrNoDevice)
		},
		OnStatus:   func(s Status) { statuses <- s },
		MinBackoff: time.Hour, // only Pause/Resume can end this wait
	}
	c.Open(context.Background())
	defer c.Close()
	waitStatus(t, statuses, NoMicrophone)
	c.Pause()
	waitStatus(t, statuses, Paused)
	c.Resume()
	waitStatus(t, statuses, NoMicrophone)
	mu.Lock()
	defer mu.Unlock()
	if opens != 2 {
		t.Errorf("%d open attempts, want 2 (one before the pause, one on resume)", opens)
	}
}
