package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
)

// sentBefore is how the API sent an agent before it had views: the task
// itself, its conversation cleared.
func sentBefore(t task.Task) task.Task {
	t.State.Messages = nil
	return t
}

// detailBefore is the body of GET /agents/{id} before views.
type detailBefore struct {
	task.Task
	Entries []store.Entry `json:"entries"`
}

// conversation marks the messages fill puts in a task, so a test can see
// that none of them is sent.
const conversation = "privileged-conversation"

// TestViewsMarshalAsBefore holds the views to the wire format the API had
// when it sent the internal types: for each view, the JSON of the internal
// value (the old path) and of its view must be the same bytes, and a
// client decoding the old bytes into the view must get them back. The full
// values are filled by reflection, every exported field of every nested
// type, so a field added to an internal type fails here until its view
// decides whether clients may see it.
func TestViewsMarshalAsBefore(t *testing.T) {
	var full task.Task
	fill(t, reflect.ValueOf(&full).Elem())
	for i := range full.State.Messages {
		full.State.Messages[i].Text = conversation
	}
	if len(full.State.Messages) == 0 || full.State.Pending == nil || len(full.State.Done) == 0 || len(full.State.Drafts) == 0 {
		t.Fatalf("fill left the task partly empty: %+v", full)
	}
	// Present but empty: omitempty drops the lists either way, and a
	// pending call without input sends null.
	empty := task.Task{Session: "task-empty", State: task.State{Plan: []string{}, Pending: &llm.ToolCall{},
		Done: []llm.ToolResult{}, Drafts: []task.SavedDraft{}, Messages: []llm.Message{}}}

	var entry store.Entry
	fill(t, reflect.ValueOf(&entry).Elem())
	var nudge store.Nudge
	fill(t, reflect.ValueOf(&nudge).Elem())
	entries := []store.Entry{entry, {ID: 2, Kind: store.KindEvent, Text: "plain"}}

	tests := []struct {
		name      string
		old, view any
	}{
		{"agent zero", sentBefore(task.Task{}), AgentOf(task.Task{})},
		{"agent full", sentBefore(full), AgentOf(full)},
		{"agent empty lists", sentBefore(empty), AgentOf(empty)},
		{"detail full", detailBefore{sentBefore(full), entries}, AgentDetail{Agent: AgentOf(full), Entries: Views(entries, EntryOf)}},
		{"detail no entries", detailBefore{sentBefore(full), []store.Entry{}}, AgentDetail{Agent: AgentOf(full), Entries: Views([]store.Entry{}, EntryOf)}},
		{"detail nil entries", detailBefore{Task: sentBefore(empty)}, AgentDetail{Agent: AgentOf(empty), Entries: Views([]store.Entry(nil), EntryOf)}},
		{"nudge zero", store.Nudge{}, NudgeOf(store.Nudge{})},
		{"nudge full", nudge, NudgeOf(nudge)},
		{"entry zero", store.Entry{}, EntryOf(store.Entry{})},
		{"entry full", entry, EntryOf(entry)},
		{"agent list", struct {
			Agents []task.Task `json:"agents"`
		}{[]task.Task{sentBefore(full), sentBefore(empty)}}, agentsResponse{Views([]task.Task{full, empty}, AgentOf)}},
		{"world", struct {
			Entries []store.Entry `json:"entries"`
		}{entries}, worldResponse{Views(entries, EntryOf)}},
		{"nudge list", struct {
			Nudges []store.Nudge `json:"nudges"`
		}{[]store.Nudge{nudge, {}}}, nudgesResponse{Views([]store.Nudge{nudge, {}}, NudgeOf)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, err := json.Marshal(tt.old)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(tt.view)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, old) {
				t.Errorf("view sends\n%s\nthe API sent\n%s", got, old)
			}
			if strings.Contains(string(got), conversation) || strings.Contains(string(got), `"messages"`) {
				t.Errorf("view sends the conversation: %s", got)
			}
			// A client reading the old bytes into the view loses nothing.
			back := reflect.New(reflect.TypeOf(tt.view))
			if err := json.Unmarshal(old, back.Interface()); err != nil {
				t.Fatal(err)
			}
			if again, err := json.Marshal(back.Elem().Interface()); err != nil || !bytes.Equal(again, old) {
				t.Errorf("decoded and sent again: %s (%v), want %s", again, err, old)
			}
		})
	}
}

// TestAgentOfCopies checks that a view shares no memory with its task.
func TestAgentOfCopies(t *testing.T) {
	var tk task.Task
	fill(t, reflect.ValueOf(&tk).Elem())
	a := AgentOf(tk)
	before, _ := json.Marshal(a)
	tk.State.Plan[0] = "changed"
	tk.State.Pending.Input[0] = '['
	tk.State.Pending.Name = "changed"
	tk.State.Done[0].Content = "changed"
	tk.State.Drafts[0].Subject = "changed"
	if after, _ := json.Marshal(a); !bytes.Equal(after, before) {
		t.Errorf("changing the task changed its view:\n%s\nwas\n%s", after, before)
	}
}

// fill sets every exported field reachable from v to a distinct non-zero
// value (two elements per list), and fails on a kind it does not know.
func fill(t *testing.T, v reflect.Value) {
	t.Helper()
	n := 0
	fillValue(t, v, &n)
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
	// A zone with a half-hour offset and nanoseconds: the time format
	// must survive both.
	fillTime = time.Date(2026, 3, 4, 9, 30, 15, 123456789, time.FixedZone("IST", 5*3600+1800))
)

func fillValue(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	*n++
	switch v.Kind() {
	case reflect.String:
		// Characters the encoder escapes, so both paths must agree on them.
		v.SetString(fmt.Sprintf("s%d <b>&é\"\n\u2028", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillValue(t, v.Elem(), n)
	case reflect.Slice:
		if v.Type() == rawType {
			// Spaced out: the encoder compacts it on both paths.
			v.SetBytes(fmt.Appendf(nil, `{ "n": %d, "s": ["x", true] }`, *n))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range s.Len() {
			fillValue(t, s.Index(i), n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillValue(t, k, n)
		fillValue(t, e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(fillTime.Add(time.Duration(*n) * time.Second)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillValue(t, v.Field(i), n)
			}
		}
	default:
		t.Fatalf("fill: cannot fill a %s (%s); teach fill about it", v.Type(), v.Kind())
	}
}
