package mailtools

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
)

func TestConversationID(t *testing.T) {
	for raw, want := range map[string]int64{`"42"`: 42, `42`: 42, `" 7 "`: 7} {
		if got, err := ConversationID(json.RawMessage(raw)); err != nil || got != want {
			t.Errorf("%s: %d %v", raw, got, err)
		}
	}
	for _, raw := range []string{`"abc"`, `0`, `-3`, `null`, `""`} {
		if _, err := ConversationID(json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), "search_email") {
			t.Errorf("%s accepted (%v)", raw, err)
		}
	}
}

func TestThreadOfKeepsMessageIDsAndMarksTheLawyer(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	th := index.Thread{ID: 9, Subject: "SNDA"}
	msgs := []index.ThreadMessage{
		{MessageID: "<a@x>", From: mail.Address{Email: "marcy@x.com"}, Date: time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC), Body: strings.Repeat("é", 10)},
		{MessageID: "<b@y>", From: mail.Address{Email: "me@firm.com"}, Date: time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC), Body: "ok"},
	}
	v := ThreadOf(th, msgs, Clock{Loc: ny}, 4, func(e string) bool { return e == "me@firm.com" })
	s, err := JSON(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"<a@x>"`, `"conversation_id":"9"`, `"body":"éééé…"`, `Fri 2026-11-20 09:00 EST`} {
		if !strings.Contains(s, want) {
			t.Errorf("%s lacks %s", s, want)
		}
	}
	if v.Messages[0].FromMe || !v.Messages[1].FromMe {
		t.Errorf("from_me %v %v", v.Messages[0].FromMe, v.Messages[1].FromMe)
	}
}

func TestToolDefinitions(t *testing.T) {
	var def Mail
	tools := def.Tools()
	if len(tools) != 2 || tools[0].Name() != SearchEmailName || tools[1].Name() != ReadThreadName {
		t.Fatalf("tools %v", tools)
	}
	for _, tl := range tools {
		d := tl.Tool()
		if d.Name != tl.Name() || d.Description == "" || !json.Valid(d.Schema) {
			t.Errorf("%s: %+v", tl.Name(), d)
		}
		if got, ok := def.Find(tl.Name()); !ok || got.Name() != tl.Name() {
			t.Errorf("Find(%s) = %v %v", tl.Name(), got, ok)
		}
	}
	if _, ok := def.Find("create_draft"); ok {
		t.Error("found a write tool")
	}
	search := string(SearchEmail{}.Tool().Schema)
	if !strings.Contains(search, `"subject":{"type":"string"}`) || !strings.Contains(search, `"required":["query"]`) {
		t.Errorf("default search schema %s", search)
	}
	w := Mail{Wording: Wording{Search: "Search it.", Query: "q \"words\"", Subject: "as on screen", ConversationID: "the id"}}
	s, r := SearchEmail{w}.Tool(), ReadThread{w}.Tool()
	if s.Description != "Search it." || !json.Valid(s.Schema) {
		t.Errorf("worded search %+v", s)
	}
	for _, want := range []string{`"description":"q \"words\""`, `"subject":{"type":"string","description":"as on screen"}`} {
		if !strings.Contains(string(s.Schema), want) {
			t.Errorf("%s lacks %s", s.Schema, want)
		}
	}
	if !strings.Contains(string(r.Schema), `"description":"the id"`) || r.Description != (ReadThread{}).Tool().Description {
		t.Errorf("worded read %+v", r)
	}
}

// testIndex holds one thread: Marcy's question, the lawyer's answer and
// an unsent draft.
func testIndex(t *testing.T) *index.Index {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix := index.New(st)
	acc, err := ix.AddAccount(t.Context(), index.Account{Kind: index.KindIMAP, Name: "me", Address: "me@firm.com"})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)
	marcy, me := mail.Address{Name: "Marcy Howard", Email: "marcy@x.com"}, mail.Address{Name: "Me", Email: "me@firm.com"}
	msgs := []mail.Message{
		{RemoteID: "1", Folder: "INBOX", MessageID: "<a@x>", Subject: "SNDA Brooklyn Gardens", From: marcy, To: []mail.Address{me}, Date: t0, Body: "Can you sign the SNDA by Friday?"},
		{RemoteID: "2", Folder: "Sent", MessageID: "<b@firm>", InReplyTo: "<a@x>", References: []string{"<a@x>"}, Subject: "Re: SNDA Brooklyn Gardens", From: me, To: []mail.Address{marcy}, Date: t0.Add(time.Hour), Body: "Yes."},
		{RemoteID: "3", Folder: "Drafts", MessageID: "<c@firm>", InReplyTo: "<b@firm>", References: []string{"<a@x>", "<b@firm>"}, Subject: "Re: SNDA Brooklyn Gardens", From: me, To: []mail.Address{marcy}, Date: t0.Add(2 * time.Hour), Body: "Draft.", Draft: true},
	}
	if err := ix.Apply(t.Context(), acc.ID, msgs); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestRun(t *testing.T) {
	ctx := t.Context()
	ix := testIndex(t)
	ny, _ := time.LoadLocation("America/New_York")
	loose := Mail{Index: ix, Clock: Clock{Loc: ny}}
	strict := loose
	strict.Strict = true

	out, err := SearchEmail{loose}.Run(ctx, json.RawMessage(`{"query":"SNDA","extra":1}`))
	if err != nil {
		t.Fatal(err)
	}
	var hits []Hit
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits) != 1 {
		t.Fatalf("hits %s (%v)", out, err)
	}
	if !strings.Contains(out, "EST") {
		t.Errorf("dates not in the clock's zone: %s", out)
	}
	if _, err := (SearchEmail{strict}).Run(ctx, json.RawMessage(`{"query":"SNDA","extra":1}`)); err == nil || !strings.HasPrefix(err.Error(), "decode: ") {
		t.Errorf("strict search took an unknown field: %v", err)
	}
	if _, err := (SearchEmail{loose}).Run(ctx, json.RawMessage(`{"query":7}`)); err == nil || !strings.HasPrefix(err.Error(), "bad input: ") {
		t.Errorf("loose search of a number: %v", err)
	}

	id := json.RawMessage(`{"conversation_id":"` + hits[0].ConversationID + `"}`)
	out, err = ReadThread{loose}.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var th Thread
	if err := json.Unmarshal([]byte(out), &th); err != nil || len(th.Messages) != 3 {
		t.Fatalf("thread %s (%v)", out, err)
	}

	// A caller's own view: only what was seen, its own addresses, its
	// own limit.
	seenOnly := strict
	seenOnly.BodyRunes = 3
	seenOnly.Seen = func(msgs []index.ThreadMessage) []index.ThreadMessage {
		var out []index.ThreadMessage
		for _, m := range msgs {
			if !m.Draft {
				out = append(out, m)
			}
		}
		return out
	}
	seenOnly.IsMe = func(e string) bool { return e == "marcy@x.com" }
	out, err = ReadThread{seenOnly}.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	th = Thread{}
	if err := json.Unmarshal([]byte(out), &th); err != nil || len(th.Messages) != 2 {
		t.Fatalf("seen thread %s (%v)", out, err)
	}
	if !th.Messages[0].FromMe || th.Messages[0].Body != "Can…" {
		t.Errorf("seen thread %+v", th.Messages[0])
	}

	if _, err := (ReadThread{loose}).Run(ctx, json.RawMessage(`{"conversation_id":"999"}`)); err == nil || err.Error() != "no such thread 999" {
		t.Errorf("loose missing thread: %v", err)
	}
	if _, err := (ReadThread{strict}).Run(ctx, json.RawMessage(`{"conversation_id":"999"}`)); err == nil || !strings.HasPrefix(err.Error(), "read thread 999: ") {
		t.Errorf("strict missing thread: %v", err)
	}
	if _, err := (ReadThread{strict}).Run(ctx, json.RawMessage(`{"conversation_id":"x"}`)); err == nil || !strings.Contains(err.Error(), "search_email") {
		t.Errorf("bad id: %v", err)
	}
}
