package mailtools

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
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
