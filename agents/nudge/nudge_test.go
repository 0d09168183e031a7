package nudge

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// The values are stored and sent over the API: pin them.
func TestStoredValues(t *testing.T) {
	for got, want := range map[string]string{
		KindReminder: "reminder", KindReminderConfirm: "reminder_confirm", KindReminderWhen: "reminder_when",
		KindReminderTrigger: "reminder_trigger",
		KindReminderList:    "reminder_list", KindInfo: "info", KindGlance: "glance", KindCommitment: "commitment", KindMeeting: "meeting", KindQuestion: "question",
		KindApproval: "approval", KindHelp: "help", KindResult: "result", KindSuggestion: "suggestion",
		Accept: "accept", Dismiss: "dismiss", Snooze: "snooze", Edit: "edit", AnswerPrefix: "answer:",
		Reply: "reply", Change: "change", OpenReminders: "open_reminders", OpenActivity: "open_activity", AtPrefix: "at:",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

func TestImportant(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		want bool
	}{
		{KindQuestion, true}, {KindApproval, true}, {KindHelp, true},
		{KindResult, false}, {KindInfo, false}, {KindGlance, false}, {KindCommitment, false}, {KindMeeting, false}, {KindReminder, false},
		{KindReminderConfirm, false}, {KindReminderTrigger, false}, {KindReminderWhen, false}, {KindReminderList, false},
		{"", false}, {"proposal", false}, {"Question", false},
	} {
		if got := Important(tc.kind); got != tc.want {
			t.Errorf("Important(%q) = %v", tc.kind, got)
		}
	}
}

func TestAnswerChoice(t *testing.T) {
	for _, tc := range []struct {
		choice, option string
		ok             bool
	}{
		{AnswerChoice("Short"), "Short", true},
		{AnswerChoice("Ask Priya"), "Ask Priya", true},
		{"answer:  padded ", "padded", true},
		{"answer:", "", true},
		{"answer:a:b", "a:b", true},
		{"accept", "", false},
		{"Answer:x", "", false},
		{"", "", false},
	} {
		o, ok := AnswerOption(tc.choice)
		if o != tc.option || ok != tc.ok {
			t.Errorf("AnswerOption(%q) = %q, %v; want %q, %v", tc.choice, o, ok, tc.option, tc.ok)
		}
	}
	if got := AnswerChoice("Long"); got != "answer:Long" {
		t.Errorf("AnswerChoice = %q", got)
	}
}

func TestAtChoice(t *testing.T) {
	at := time.Date(2025, 3, 14, 17, 0, 0, 0, time.FixedZone("EST", -5*3600))
	c := AtChoice(at)
	if c != "at:2025-03-14T17:00:00-05:00" {
		t.Fatalf("AtChoice = %q", c)
	}
	got, ok := AtTime(c)
	if !ok || !got.Equal(at) {
		t.Fatalf("AtTime(%q) = %v, %v", c, got, ok)
	}
	for _, bad := range []string{"", "at:", "at:tomorrow", "at:2025-03-14 17:00", "2025-03-14T17:00:00Z", "accept"} {
		if got, ok := AtTime(bad); ok || !got.IsZero() {
			t.Errorf("AtTime(%q) = %v, %v; want not ok", bad, got, ok)
		}
	}
}

func TestReadDetail(t *testing.T) {
	for _, tc := range []struct {
		name, detail string
		into         any
		want         any
		err          bool
	}{
		{"empty", "", &Question{}, &Question{}, false},
		{"blank", " \n\t", &Approval{}, &Approval{}, false},
		{"question", `{"options":["Short","Long"]}`, &Question{}, &Question{Options: []string{"Short", "Long"}}, false},
		{"no options", `{}`, &Question{}, &Question{}, false},
		{"approval", `{"tool":"create_draft","title":"Draft reply","fields":[{"label":"To","value":"Marcy <m@x.com>"},{"label":"Cc","value":""}],"body":"Hi"}`,
			&Approval{}, &Approval{Tool: "create_draft", Title: "Draft reply", Body: "Hi",
				Fields: []Field{{Label: "To", Value: "Marcy <m@x.com>"}, {Label: "Cc"}}}, false},
		{"truncated", `{"options": [1,`, &Question{}, nil, true},
		{"wrong type", `{"options": [1]}`, &Question{}, nil, true},
		{"not an object", `"hello"`, &Approval{}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ReadDetail(tc.detail, tc.into)
			if tc.err {
				if err == nil || !strings.HasPrefix(err.Error(), "nudge detail: ") || errors.Unwrap(err) == nil {
					t.Fatalf("err = %v, want a wrapped nudge detail error", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(tc.into, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", tc.into, err, tc.want)
			}
		})
	}
}

// The detail JSON is what the store holds: pin it.
func TestDetailJSON(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{Question{Options: []string{"A", "B"}}, `{"options":["A","B"]}`},
		{Question{}, `{"options":null}`},
		{CommitmentOffer{Task: "send the revised redline", Deadline: time.Date(2030, 3, 15, 9, 0, 0, 0, time.FixedZone("", -4*3600)),
			RemindAt: time.Date(2030, 3, 15, 8, 0, 0, 0, time.FixedZone("", -4*3600))},
			`{"task":"send the revised redline","deadline":"2030-03-15T09:00:00-04:00","remind_at":"2030-03-15T08:00:00-04:00"}`},
		{Approval{Tool: "create_draft", Title: "New email draft", Body: "Hi",
			Fields: []Field{{Label: "To", Value: "a@x.com"}, {Label: "Subject", Value: "Re: SNDA"}}},
			`{"tool":"create_draft","title":"New email draft","fields":[{"label":"To","value":"a@x.com"},{"label":"Subject","value":"Re: SNDA"}],"body":"Hi"}`},
	} {
		got, err := Detail(tc.v)
		if err != nil || got != tc.want {
			t.Errorf("Detail(%+v) = %s, %v; want %s", tc.v, got, err, tc.want)
		}
		back := reflect.New(reflect.TypeOf(tc.v))
		if err := ReadDetail(got, back.Interface()); err != nil || !reflect.DeepEqual(back.Elem().Interface(), tc.v) {
			t.Errorf("round trip of %+v: %+v, %v", tc.v, back.Elem().Interface(), err)
		}
	}
	if _, err := Detail(func() {}); err == nil {
		t.Error("Detail of a func: no error")
	}
}

func TestSubjects(t *testing.T) {
	mid := "<PH0PR08MB2526@PH0PR08MB2526.namprd08.prod.outlook.com>"
	if s := GlanceSubject(mid); s != "glance:"+mid {
		t.Errorf("GlanceSubject = %q", s)
	}
	if s := TaskSubject("task-0123456789ab"); s != "agent:task-0123456789ab" {
		t.Errorf("TaskSubject = %q", s)
	}
	if s := ReminderSubject(12); s != "reminder-12" || s != store.ReminderIdentifier(12) {
		t.Errorf("ReminderSubject = %q", s)
	}

	if s := CommitmentSubject("commit-0a1b2c3d4e5f6071"); s != "commitment:commit-0a1b2c3d4e5f6071" {
		t.Errorf("CommitmentSubject = %q", s)
	}
	for _, k := range []string{"commit-0a1b2c3d4e5f6071", "x", "commitment:y"} {
		if got, ok := CommitmentKey(CommitmentSubject(k)); !ok || got != k {
			t.Errorf("commitment round trip %q: %q, %v", k, got, ok)
		}
	}
	for _, s := range []string{"", "commitment:", "commitment", "Commitment:x", "glance:x", "reminder-1", "agent:x", " commitment:x"} {
		if got, ok := CommitmentKey(s); ok || got != "" {
			t.Errorf("CommitmentKey(%q) = %q, %v", s, got, ok)
		}
	}

	if s := MeetingSubject("uid-1/20260618T143000Z"); s != "meeting:uid-1/20260618T143000Z" {
		t.Errorf("MeetingSubject = %q", s)
	}
	for _, k := range []string{"uid-1/20260618T143000Z", "x", "meeting:y"} {
		if got, ok := MeetingKey(MeetingSubject(k)); !ok || got != k {
			t.Errorf("meeting round trip %q: %q, %v", k, got, ok)
		}
	}
	for _, s := range []string{"", "meeting:", "meeting", "Meeting:x", "glance:x", "commitment:x", " meeting:x"} {
		if got, ok := MeetingKey(s); ok || got != "" {
			t.Errorf("MeetingKey(%q) = %q, %v", s, got, ok)
		}
	}

	for _, m := range []string{mid, "a", "glance:x", "with space"} {
		if got, ok := GlanceMessage(GlanceSubject(m)); !ok || got != m {
			t.Errorf("glance round trip %q: %q, %v", m, got, ok)
		}
	}
	for _, s := range []string{"task-0123456789ab", "x", "agent:y"} {
		if got, ok := TaskSession(TaskSubject(s)); !ok || got != s {
			t.Errorf("task round trip %q: %q, %v", s, got, ok)
		}
	}
	for _, id := range []int64{1, 12, 1 << 62} {
		if got, ok := ReminderID(ReminderSubject(id)); !ok || got != id {
			t.Errorf("reminder round trip %d: %d, %v", id, got, ok)
		}
	}

	// Malformed or foreign subjects.
	for _, s := range []string{"", "glance:", "glance", "Glance:x", "agent:x", "reminder-1", " glance:x"} {
		if got, ok := GlanceMessage(s); ok || got != "" {
			t.Errorf("GlanceMessage(%q) = %q, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "agent:", "agent", "task-1", "glance:x", "reminder-1", " agent:x"} {
		if got, ok := TaskSession(s); ok || got != "" {
			t.Errorf("TaskSession(%q) = %q, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "reminder-", "reminder-x", "reminder-0", "reminder--3", "reminder-+3", "reminder-007",
		"reminder-1.5", "reminder-12 ", "reminder:12", "reminder-99999999999999999999", "glance:12", "agent:12"} {
		if got, ok := ReminderID(s); ok || got != 0 {
			t.Errorf("ReminderID(%q) = %d, %v", s, got, ok)
		}
	}
}

func choices(cs []Choice) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID+"="+c.Label)
	}
	return strings.Join(out, "|")
}

func TestSpecFor(t *testing.T) {
	for _, tc := range []struct {
		kind                        Kind
		title, choices, placeholder string
		noDefault                   bool
	}{
		{KindReminder, "Reminder", "accept=Done|snooze=Snooze 10 min|dismiss=Dismiss", "Snooze for… (e.g. 30 minutes)", false},
		{KindReminderConfirm, "Reminder", "accept=Set|change=Change time|dismiss=Dismiss", "Or type another time, e.g. “at 4 instead”", false},
		{KindReminderTrigger, "Reminder", "accept=Set|dismiss=Dismiss", "Or type a time instead, e.g. “tomorrow at 9”", false},
		{KindReminderWhen, "Reminder", "", "Or type a time, e.g. “Friday at 10”", false},
		{KindReminderList, "Reminder", "open_reminders=Open Reminders|accept=OK", "", false},
		{KindInfo, "Spirit", "accept=OK", "", false},
		{KindGlance, "Email", "accept=Draft it|snooze=Not now|dismiss=Dismiss", "Or tell Spirit what to do instead…", false},
		{KindCommitment, "Said on a call", "accept=Set|change=Change time|dismiss=Dismiss", "Or type another time, e.g. “Thursday at 4 instead”", false},
		{KindMeeting, "Meeting", "accept=Brief me|snooze=Not now|dismiss=Dismiss", "Or tell Spirit what to prepare…", false},
		{KindSuggestion, "Spirit", "accept=Do it|snooze=Not now|dismiss=Dismiss", "Or tell Spirit what to do instead…", false},
		{KindQuestion, "Question", "dismiss=Dismiss", "Type your answer…", true},
		{KindApproval, "Approval", "accept=Approve|edit=Edit|dismiss=Deny", "Or tell Spirit what to change…", true},
		{KindHelp, "Need help", "accept=Try again|dismiss=Stop", "Tell Spirit how to go on…", false},
		{KindResult, "Done", "accept=OK|open_activity=Show activity", "", false},
		{"", "", "accept=Do it|snooze=Not now|dismiss=Dismiss", "", false},
		{"proposal", "Proposal", "accept=Do it|snooze=Not now|dismiss=Dismiss", "", false},
		{"file_review", "File review", "accept=Do it|snooze=Not now|dismiss=Dismiss", "", false},
	} {
		s := SpecFor(tc.kind)
		if s.Title != tc.title || choices(s.Choices) != tc.choices || s.Placeholder != tc.placeholder || s.NoDefault != tc.noDefault {
			t.Errorf("SpecFor(%q) = %+v", tc.kind, s)
		}
	}
	if got := choices(DefaultChoices()); got != "accept=Do it|snooze=Not now|dismiss=Dismiss" {
		t.Errorf("DefaultChoices = %s", got)
	}
}

// The heading speaks the lawyer's words: every title starts with a
// capital and has no "_", and none is Spirit's internal word "glance" (the
// bubble once said "GLANCE" over an email).
func TestSpecTitlesArePlainWords(t *testing.T) {
	for kind := range specs {
		title := SpecFor(kind).Title
		if strings.Contains(strings.ToLower(title), KindGlance) {
			t.Errorf("SpecFor(%q).Title = %q: an internal word", kind, title)
		}
		if title == "" || strings.Contains(title, "_") || strings.ToUpper(title[:1]) != title[:1] {
			t.Errorf("SpecFor(%q).Title = %q: want a capitalised plain word", kind, title)
		}
	}
}

func TestKindTitle(t *testing.T) {
	for _, tc := range []struct{ name, kind, want string }{
		{"empty", "", ""},
		{"one word", "proposal", "Proposal"},
		{"underscores", "file_review", "File review"},
		{"already capitalised", "Deadline", "Deadline"},
		{"non-ASCII first letter", "échéance", "Échéance"},
		{"only underscores", "__", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kindTitle(tc.kind); got != tc.want {
				t.Errorf("kindTitle(%q) = %q, want %q", tc.kind, got, tc.want)
			}
		})
	}
}

// A caller building the dynamic parts must not change the table.
func TestSpecForCopies(t *testing.T) {
	s := SpecFor(KindApproval)
	s.Choices[0].Label = "changed"
	s.Choices = append(s.Choices[:1], s.Choices[2:]...)
	w := SpecFor(KindReminderWhen)
	w.Choices = append(w.Choices, Choice{AtChoice(time.Now()), "In 1 hour"})
	d := DefaultChoices()
	d[0].Label = "changed"
	if got := choices(SpecFor(KindApproval).Choices); got != "accept=Approve|edit=Edit|dismiss=Deny" {
		t.Errorf("approval choices changed: %s", got)
	}
	if got := SpecFor(KindReminderWhen).Choices; len(got) != 0 {
		t.Errorf("reminder_when choices changed: %v", got)
	}
	if got := choices(DefaultChoices()); got != "accept=Do it|snooze=Not now|dismiss=Dismiss" {
		t.Errorf("default choices changed: %s", got)
	}
}

func TestResponders(t *testing.T) {
	var calls []string
	rec := func(name string, err error) Responder {
		return func(_ context.Context, n store.Nudge, choice, text string) error {
			calls = append(calls, fmt.Sprintf("%s(%d,%s,%s)", name, n.ID, choice, text))
			return err
		}
	}
	boom := errors.New("boom")
	rs := NewResponders(rec("fallback", nil))
	rs.Register(KindReminder, rec("reminder", nil))
	rs.Register(KindQuestion, rec("agent", boom))
	rs.Register(KindApproval, rec("agent", nil))

	for _, tc := range []struct {
		n            store.Nudge
		choice, text string
		call         string
		err          error
	}{
		{store.Nudge{ID: 1, Kind: KindReminder}, Snooze, "20", "reminder(1,snooze,20)", nil},
		{store.Nudge{ID: 2, Kind: KindQuestion}, AnswerChoice("Short"), "", "agent(2,answer:Short,)", boom},
		{store.Nudge{ID: 3, Kind: KindApproval}, Edit, "new body", "agent(3,edit,new body)", nil},
		{store.Nudge{ID: 4, Kind: KindGlance}, Accept, "", "fallback(4,accept,)", nil},
		{store.Nudge{ID: 5, Kind: ""}, Dismiss, "", "fallback(5,dismiss,)", nil},
	} {
		calls = nil
		err := rs.Respond(context.Background(), tc.n, tc.choice, tc.text)
		if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) || len(calls) != 1 || calls[0] != tc.call {
			t.Errorf("Respond(%+v, %s, %s): calls %v, err %v; want %s, %v", tc.n, tc.choice, tc.text, calls, err, tc.call, tc.err)
		}
	}

	none := NewResponders(nil)
	none.Register(KindInfo, rec("info", nil))
	calls = nil
	if err := none.Respond(context.Background(), store.Nudge{ID: 6, Kind: KindResult}, Accept, ""); !errors.Is(err, ErrNoResponder) || len(calls) != 0 {
		t.Errorf("no fallback: err %v, calls %v", err, calls)
	}
	if err := none.Respond(context.Background(), store.Nudge{ID: 7, Kind: KindInfo}, Accept, ""); err != nil || len(calls) != 1 {
		t.Errorf("registered without fallback: err %v, calls %v", err, calls)
	}
}

func TestRespondersWiringMistakesPanic(t *testing.T) {
	for name, f := range map[string]func(rs *Responders){
		"duplicate": func(rs *Responders) {
			rs.Register(KindHelp, func(context.Context, store.Nudge, string, string) error { return nil })
			rs.Register(KindHelp, func(context.Context, store.Nudge, string, string) error { return nil })
		},
		"nil": func(rs *Responders) { rs.Register(KindHelp, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f(NewResponders(nil))
		})
	}
}
