package listen_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/audio/audiotest"
	"github.com/spirit-app/spirit/voice/listen"
)

const deadline = 30 * time.Second

// TestListenerJACK runs the real pipeline: a JACK dummy sound card, Capture
// with its helper process, the VAD and the Listener. Speech played into the
// card's graph is segmented into the right utterances; pulling the card
// (stopping jackd) is survived and plugging it back resumes listening.
func TestListenerJACK(t *testing.T) {
	noLeaks(t)
	jack := audiotest.StartJack(t)
	x, truth := speech(t)

	statuses := make(chan audio.Status, 100)
	var helper atomic.Pointer[audio.HelperSource]
	capture := &audio.Capture{
		NewSource: func() audio.Source {
			h := &audio.HelperSource{Device: "system", ClientName: "spirit-listen-test", StallTimeout: time.Second}
			helper.Store(h)
			return h
		},
		OnStatus:   func(s audio.Status) { statuses <- s },
		MinBackoff: 100 * time.Millisecond,
		MaxBackoff: time.Second,
	}
	tr := &fakeTranscriber{calls: make(chan int, 100)}
	heard := make(chan listen.Heard, 100)
	l := &listen.Listener{Source: capture, Transcriber: tr, OnHeard: func(h listen.Heard) { heard <- h }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	}()
	audiotest.WaitStatus(t, statuses, audio.Listening, deadline)

	// Loop a player into the capture port and play the phrases.
	play := func(x []float32) {
		t.Helper()
		p := audiotest.NewPlayer(t, jack)
		defer p.Close() // before jackd may stop: see Player
		ports := jack.PortsOf("spirit-listen-test:")
		if len(ports) != 1 {
			t.Fatalf("capture ports %v", ports)
		}
		jack.Connect(p.Port, ports[0])
		select {
		case <-p.Play(x):
		case <-time.After(time.Duration(len(x))*time.Second/audio.SampleRate + deadline):
			t.Fatal("player stalled")
		}
	}
	play(x)
	var got []listen.Heard
	for range truth {
		select {
		case h := <-heard:
			got = append(got, h)
		case <-time.After(deadline):
			t.Fatalf("heard %d of %d utterances", len(got), len(truth))
		}
	}
	// The stream offset where playback began is unknown, but the layout is
	// not: the gaps between utterances must match the truth.
	for i := 1; i < len(got); i++ {
		want := truth[i].Start - truth[i-1].Start
		d := (got[i].Start - got[i-1].Start) - want
		t.Logf("utterance %d: [%v, %v]; spacing from the previous one off by %v", i, got[i].Start, got[i].End, d)
		if d < -100*time.Millisecond || d > 100*time.Millisecond {
			t.Errorf("utterance %d starts %v after the previous one, truth %v", i, got[i].Start-got[i-1].Start, want)
		}
	}
	// Nothing more follows: wait until the listener has consumed two more
	// seconds of the (silent) device.
	audiotest.WaitUntil(t, func() bool { return l.Position() > got[len(got)-1].End+2*time.Second }, deadline)
	if n := len(tr.Lengths()); n != len(truth) {
		t.Errorf("%d transcription calls, want %d", n, len(truth))
	}

	// Unplug: reported, retried, survived.
	jack.Stop()
	s := audiotest.WaitStatus(t, statuses, audio.DeviceLost, deadline)
	t.Logf("unplugged: %s", s.Detail)
	audiotest.WaitStatus(t, statuses, audio.NoMicrophone, deadline)

	// Plug back in: listening again, end to end.
	jack.Start()
	audiotest.WaitStatus(t, statuses, audio.Listening, deadline)
	one, _ := audiotest.Compose([]audiotest.Segment{{Gap: 500 * time.Millisecond, Clip: audiotest.Speak(t, "Resume listening.")}}, time.Second)
	play(one)
	select {
	case h := <-heard:
		t.Logf("after replug heard %q at %v", h.Text, h.Start)
	case <-time.After(deadline):
		t.Fatal("nothing heard after the device came back")
	}
	if pid := helper.Load().HelperPID(); pid == 0 {
		t.Error("no capture helper running after replug")
	}
}
