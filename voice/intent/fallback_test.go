package intent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// askerFunc is an Asker from a function.
type askerFunc func(ctx context.Context, q Question) (json.RawMessage, error)

func (f askerFunc) Ask(ctx context.Context, q Question) (json.RawMessage, error) { return f(ctx, q) }

// TestModelIntent: the model's answer becomes an intent only when it is
// exactly one well-formed command; times are read by the grammar.
func TestModelIntent(t *testing.T) {
	now := time.Date(2026, 6, 12, 8, 0, 0, 0, time.FixedZone("", -4*3600)) // a Friday
	for _, c := range []struct {
		name, answer, want string
	}{
		{"remind with time words", `{"intent":"remind","task":"call the bank","when":"tomorrow at 3"}`,
			`remind task="call the bank" due=2026-06-13T15:00:00-04:00`},
		{"remind without time asks when", `{"intent":"remind","task":"call the bank"}`, `remind task="call the bank"`},
		{"recurrence in the time words", `{"intent":"remind","task":"check the docket","when":"every weekday at 9"}`,
			`remind task="check the docket" due=2026-06-12T09:00:00-04:00 every=weekday`},
		{"recurrence as its own field", `{"intent":"remind","task":"check the docket","when":"at 9","every":"weekday"}`,
			`remind task="check the docket" due=2026-06-12T09:00:00-04:00 every=weekday`},
		{"snooze default", `{"intent":"snooze"}`, `snooze minutes=10`},
		{"snooze minutes", `{"intent":"snooze","minutes":25}`, `snooze minutes=25`},
		{"task", `{"intent":"task","task":"draft a reply to Marcy"}`, `task task="draft a reply to Marcy"`},
		{"pause listening", `{"intent":"pause_listening"}`, `pause_listening`},
		{"cancel", `{"intent":"cancel"}`, `cancel`},

		{"none is not understood", `{"intent":"none"}`, `error`},
		{"unknown intent", `{"intent":"send_email","task":"send it"}`, `error`},
		{"unknown field", `{"intent":"cancel","confidence":0.9}`, `error`},
		{"not an object", `["cancel"]`, `error`},
		{"two objects", `{"intent":"cancel"}{"intent":"resume"}`, `error`},
		{"broken JSON", `{"intent":"remind","task":`, `error`},
		{"empty", ``, `error`},
		{"remind without task", `{"intent":"remind","when":"at 3"}`, `error`},
		{"unreadable time words", `{"intent":"remind","task":"call","when":"whenever suits"}`, `error`},
		{"time that never comes", `{"intent":"remind","task":"call","when":"on March 3rd 2020"}`, `error`},
		{"every against the time words", `{"intent":"remind","task":"call","when":"every monday","every":"day"}`, `error`},
		{"unknown recurrence", `{"intent":"remind","task":"call","every":"month"}`, `error`},
		{"snooze out of range", `{"intent":"snooze","minutes":0}`, `error`},
		{"snooze too long", `{"intent":"snooze","minutes":100000}`, `error`},
		{"snooze with a task", `{"intent":"snooze","task":"the reminder"}`, `error`},
		{"task with a time", `{"intent":"task","task":"draft it","when":"tomorrow"}`, `error`},
		{"task without words", `{"intent":"task","task":"  "}`, `error`},
		{"pause with fields", `{"intent":"pause_watching","minutes":5}`, `error`},
		{"control characters", `{"intent":"task","task":"draft\u0000it"}`, `error`},
		{"task too long", `{"intent":"task","task":"` + strings.Repeat("a", maxModelTask+1) + `"}`, `error`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := modelIntent(json.RawMessage(c.answer), now)
			got := describe(in)
			if err != nil {
				if !errors.Is(err, ErrNotUnderstood) {
					t.Fatalf("error %v is not ErrNotUnderstood", err)
				}
				got = "error"
			}
			if got != c.want {
				t.Errorf("modelIntent(%s)\n got %s (%v)\nwant %s", c.answer, got, err, c.want)
			}
		})
	}
}

func TestReadWithModel(t *testing.T) {
	now := time.Date(2026, 6, 12, 8, 0, 0, 0, time.UTC)
	var asked Question
	m := askerFunc(func(_ context.Context, q Question) (json.RawMessage, error) {
		asked = q
		return json.RawMessage(`{"intent":"pause_watching"}`), nil
	})
	in, err := ReadWithModel(context.Background(), m, `hey spirit, blank out the "monitor" thing`, now)
	if err != nil || in.Kind != PauseWatching {
		t.Fatalf("ReadWithModel = %s, %v", describe(in), err)
	}
	if asked.Tool.Name != ReadTool.Name || !json.Valid(asked.Tool.Schema) {
		t.Errorf("tool %+v", asked.Tool)
	}
	if !strings.Contains(asked.User, `"hey spirit, blank out the \"monitor\" thing"`) {
		t.Errorf("the user's words are not quoted as data: %s", asked.User)
	}
	if !strings.Contains(asked.System, "Friday, 12 June 2026 08:00") {
		t.Errorf("system prompt lacks now: %s", asked.System)
	}

	down := errors.New("connection refused")
	_, err = ReadWithModel(context.Background(), askerFunc(func(context.Context, Question) (json.RawMessage, error) {
		return nil, down
	}), "hey spirit, blank the screen", now)
	if !errors.Is(err, down) || errors.Is(err, ErrNotUnderstood) {
		t.Errorf("a failed call gives %v, want the call's error", err)
	}
}

func TestWakeLed(t *testing.T) {
	for _, c := range []struct {
		name, text string
		opts       ParseOptions
		want       bool
	}{
		{"default wake phrase", "Hey Spirit, blank the screen", ParseOptions{}, true},
		{"name first", "spirit, do the thing", ParseOptions{}, true},
		{"okay and name", "um okay spirit do the thing", ParseOptions{}, true},
		{"no address", "could you do the thing", ParseOptions{}, false},
		{"name later", "tell spirit to do the thing", ParseOptions{}, false},
		{"configured phrase", "ok counsel, do the thing", ParseOptions{RequireWake: true, WakePhrase: "ok counsel"}, true},
		{"name when another phrase is required", "spirit, do the thing", ParseOptions{RequireWake: true, WakePhrase: "ok counsel"}, false},
		{"empty", "", ParseOptions{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := WakeLed(c.text, c.opts); got != c.want {
				t.Errorf("WakeLed(%q, %+v) = %v, want %v", c.text, c.opts, got, c.want)
			}
		})
	}
}
