package commit

import (
	"testing"
	"time"
)

// TestHear follows a live stream: each utterance is heard with the ones
// before it, and what Hear offers at each step is checked.
func TestHear(t *testing.T) {
	type step struct {
		text  string
		after time.Duration // since wed
		want  []string      // tasks offered for this utterance
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"said-twice-offered-once", []step{
			{"I'll send you the revised lease redline by noon", 0, []string{"send the revised lease redline"}},
			{"um, yes, the rent review clause as well", 20 * time.Second, nil},
			{"okay so revised redline by noon, I'll send it over", 40 * time.Second, nil},
		}},
		{"restated-in-other-words", []step{
			{"I'll circulate an updated closing checklist on Friday", 0, []string{"circulate an updated closing checklist"}},
			{"yeah, I'll get you the updated checklist Friday", time.Minute, nil},
		}},
		{"relative-time-repeated", []step{
			{"I'll call Bettina back in two hours", 0, []string{"call Bettina back"}},
			{"so two hours, I'll call Bettina back in two hours", 3 * time.Minute, nil},
		}},
		{"two-promises-same-time", []step{
			{"I'll send the lease by Friday", 0, []string{"send the lease"}},
			{"and I'll send the SNDA by Friday", 30 * time.Second, []string{"send the SNDA"}},
		}},
		{"open-then-timed", []step{
			{"I'll look into the estoppel question", 0, []string{"look into the estoppel question"}},
			{"actually I'll look into the estoppel question tonight", time.Minute, []string{"look into the estoppel question"}},
		}},
		{"timed-then-open-restatement", []step{
			{"I'll send the title report tomorrow", 0, []string{"send the title report"}},
			{"yes I'll send the title report", time.Minute, nil},
		}},
		{"time-as-afterthought", []step{
			{"I'll send you the rent roll", 0, []string{"send the rent roll"}},
			{"by Thursday", 5 * time.Second, []string{"send the rent roll"}},
			{"by Thursday, yes", 10 * time.Second, nil},
		}},
		{"media-playing", []step{
			{"you're listening to The Closing Table", 0, nil},
			{"next week I'll walk you through the new disclosure rules", 10 * time.Second, nil},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var recent []Utterance
			for i, s := range tc.steps {
				u := Utterance{Text: s.text, End: wed.Add(s.after)}
				got := Hear(u, recent, nil)
				var tasks []string
				for _, c := range got {
					tasks = append(tasks, c.Task)
				}
				if len(tasks) != len(s.want) {
					t.Fatalf("step %d %q: offered %q, want %q", i, s.text, tasks, s.want)
				}
				for k := range tasks {
					if tasks[k] != s.want[k] {
						t.Errorf("step %d %q: offered %q, want %q", i, s.text, tasks, s.want)
					}
				}
				recent = append(recent, u)
			}
		})
	}
}

// TestHearTimesEachUtteranceAtItsEnd: "in an hour" counts from the end of
// the utterance that said it, in the location given.
func TestHearTimesEachUtteranceAtItsEnd(t *testing.T) {
	utc := wed.UTC()
	got := Hear(Utterance{Text: "I'll call the registry in an hour", End: utc.Add(90 * time.Second)}, nil, wed.Location())
	if len(got) != 1 {
		t.Fatalf("got %v", got)
	}
	want := day(0, 11, 1)
	if !got[0].Deadline.Equal(want) || got[0].Deadline.Location() != wed.Location() {
		t.Errorf("deadline %v, want %v", got[0].Deadline, want)
	}
}

// TestKey: the same promise gives the same key whenever it is heard; a
// different task or deadline gives another.
func TestKey(t *testing.T) {
	detect := func(text string, now time.Time) Commitment {
		t.Helper()
		c, ok := Detect([]string{text}, now, nil)
		if !ok {
			t.Fatalf("%q: no commitment", text)
		}
		return c
	}
	a := detect("I'll send you the revised redline by Friday", wed)
	b := detect("okay, I'll send the revised redline by Friday", wed.Add(2*time.Hour))
	if a.Key != b.Key {
		t.Errorf("same promise, keys %q and %q", a.Key, b.Key)
	}
	for _, other := range []Commitment{
		detect("I'll send you the revised SNDA by Friday", wed),
		detect("I'll send you the revised redline by Thursday", wed),
		detect("I'll send you the revised redline", wed),
	} {
		if other.Key == a.Key {
			t.Errorf("%q (%v) has the key of %q", other.Task, other.Deadline, a.Task)
		}
	}
}

func TestSame(t *testing.T) {
	at := func(task string, d time.Time) Commitment {
		return Commitment{Task: task, Deadline: d, HasTime: !d.IsZero()}
	}
	fri := day(2, 9, 0)
	for _, tc := range []struct {
		name string
		a, b Commitment
		want bool
	}{
		{"restated", at("circulate an updated closing checklist", fri), at("send the updated checklist", fri), true},
		{"pointing-back", at("send the revised redline", fri), at("send it over", fri.Add(10*time.Minute)), true},
		{"other-thing", at("send the lease", fri), at("send the SNDA", fri), false},
		{"other-day", at("send the lease", fri), at("send the lease", fri.AddDate(0, 0, 1)), false},
		{"open-and-timed", at("send the lease", open), at("send the lease", fri), false},
		{"both-open", at("look into the easement", open), at("look into the access easement", open), true},
		{"both-open-unrelated", at("look into the easement", open), at("call the lender", open), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Same(tc.a, tc.b); got != tc.want {
				t.Errorf("Same(%q, %q) = %v, want %v", tc.a.Task, tc.b.Task, got, tc.want)
			}
			if got := Same(tc.b, tc.a); got != tc.want {
				t.Errorf("Same(%q, %q) = %v, want %v (not symmetric)", tc.b.Task, tc.a.Task, got, tc.want)
			}
		})
	}
}
