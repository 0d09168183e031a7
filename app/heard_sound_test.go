package app

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/audio/audiotest"
)

// scriptedWords stands in for whisper's words (a real model is not at
// hand in tests, and a random-weight one writes noise): each utterance
// the microphone hears is given the next of its lines, in order, and the
// number of samples it was heard in is kept. An utterance past the script
// is heard as silence.
type scriptedWords struct {
	mu    sync.Mutex
	lines []string
	heard []int // samples of each utterance given to it
}

func (s *scriptedWords) Transcribe(_ context.Context, samples []float32) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.heard = append(s.heard, len(samples))
	if len(s.lines) == 0 {
		return "", nil
	}
	line := s.lines[0]
	s.lines = s.lines[1:]
	return line, nil
}

func (s *scriptedWords) utterances() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.heard...)
}

// TestHeardCommitmentFromSound runs Spirit whole, its microphone on a JACK
// dummy sound card, and plays a promise made on a call into the card: the
// speech goes through the capture helper and the VAD to the transcriber,
// the commitment detector finds the promise, and a bubble offers the
// reminder (seen through the local API, as a front end sees it). Set
// makes the reminder, and it fires: its own bubble comes when it is due.
func TestHeardCommitmentFromSound(t *testing.T) {
	if testing.Short() {
		t.Skip("plays speech in real time and waits seconds for the reminder")
	}
	const said = "I'll send you the revised redline in a minute"
	jack := audiotest.StartJack(t) // the capture helper inherits JACK_DEFAULT_SERVER
	clip := audiotest.Speak(t, said)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	deskless(t, dir)
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for k, v := range map[string]string{"voice.device": "system", "voice.threads": "1"} {
		if err := st.SetSetting(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	words := &scriptedWords{lines: []string{said}}
	// Spirit's clock runs with the wall clock, and is put forward before
	// Set so that "in a minute" falls due seconds later, not a minute.
	clock := &testClock{wall: true}
	p, err := build(ctx, partsConfig{Store: st, DataDir: dir, Version: "test", Transcriber: words, Now: clock.Now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	bubbles := p.bus.Subscribe(events.NudgeShown, 0)
	t.Cleanup(bubbles.Unsubscribe)
	runParts(t, p)
	cl := startAPI(t, p.core)

	// The microphone is open once Spirit's capture port is in the graph.
	var ports []string
	poll(t, ctx, "Spirit's capture port on the JACK card", func() bool {
		h, err := cl.Health(ctx)
		ports = jack.PortsOf("Spirit:")
		return err == nil && h.Subsystems["listening"].State == "on" && len(ports) == 1
	})
	pl := audiotest.NewPlayer(t, jack)
	defer pl.Close() // before jackd stops: see audiotest.Player
	jack.Connect(pl.Port, ports[0])
	x, truth := audiotest.Compose([]audiotest.Segment{{Gap: 300 * time.Millisecond, Clip: clip}}, time.Second)
	select {
	case <-pl.Play(x):
	case <-ctx.Done():
		t.Fatal("player stalled")
	}

	// The bubble offers the reminder.
	var offer api.Nudge
	poll(t, ctx, "the commitment's bubble", func() bool {
		ns, err := cl.Nudges(ctx)
		for _, n := range ns {
			if n.Kind == string(nudge.KindCommitment) {
				offer = n
			}
		}
		return err == nil && offer.ID != 0
	})
	if !strings.HasPrefix(offer.Message, "You said you'd send the revised redline by ") || !strings.Contains(offer.Message, "Remind you ") {
		t.Errorf("the bubble says %q", offer.Message)
	}
	// What reached the transcriber was the speech, as the VAD cut it.
	speech := int((truth[0].End - truth[0].Start) * audio.SampleRate / time.Second)
	if us := words.utterances(); len(us) == 0 || us[0] < speech/2 || us[0] > speech*3 {
		t.Errorf("utterances heard %v samples, want one near the speech's %d", us, speech)
	}
	shown(t, ctx, bubbles, offer.ID)

	// Set: the reminder exists, at the time offered, and fires.
	var detail nudge.CommitmentOffer
	if err := nudge.ReadDetail(offer.Detail, &detail); err != nil {
		t.Fatal(err)
	}
	// Three seconds before it is due: the reminder is still in the future
	// when it is made, and fires by Spirit's own timer.
	clock.Advance(max(detail.RemindAt.Sub(clock.Now())-3*time.Second, 0))
	if _, err := cl.Respond(ctx, offer.ID, api.ActionAccept, ""); err != nil {
		t.Fatal(err)
	}
	rs, err := p.core.Reminders(ctx)
	if err != nil || len(rs) != 1 || rs[0].Task != "send the revised redline" || rs[0].Due == nil || !rs[0].Due.Equal(detail.RemindAt) {
		t.Fatalf("reminders %+v, %v; want one to send the revised redline at %v", rs, err, detail.RemindAt)
	}
	if open, err := p.core.OpenCommitments(ctx); err != nil || len(open) != 0 {
		t.Errorf("open commitments after Set: %+v, %v", open, err)
	}
	var fired api.Nudge
	poll(t, ctx, "the reminder firing", func() bool {
		ns, err := cl.Nudges(ctx)
		for _, n := range ns {
			if n.Kind == string(nudge.KindReminder) && n.Subject == nudge.ReminderSubject(rs[0].ID) {
				fired = n
			}
		}
		return err == nil && fired.ID != 0
	})
	if at := clock.Now(); at.Before(detail.RemindAt) || !strings.Contains(fired.Message, "send the revised redline") {
		t.Errorf("the reminder fired at %v saying %q; due %v", at, fired.Message, detail.RemindAt)
	}
	shown(t, ctx, bubbles, fired.ID)
}

// poll checks cond until it holds, failing the test when ctx ends first.
func poll(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	if err := xtest.Poll(ctx, func() (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// shown reads the front end's stream until nudge id is put in front of
// the lawyer.
func shown(t *testing.T, ctx context.Context, bubbles *events.Subscription, id int64) {
	t.Helper()
	for {
		select {
		case ev := <-bubbles.C():
			if n, ok := ev.Data.(store.Nudge); ok && n.ID == id {
				return
			}
		case <-ctx.Done():
			t.Fatalf("nudge %d never reached the front end's stream", id)
		}
	}
}
