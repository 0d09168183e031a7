package store

import (
	"errors"
	"testing"
)

// TestDocuments: a document is kept with its title, text and agent, read
// back by id and listed under its agent; one without a title or text is
// refused.
func TestDocuments(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	a, err := s.AddDocument(ctx, Document{Title: " Brief: SNDA call ", Markdown: "# Brief\n\n- Marcy", Agent: "s1", Origin: "nudge-3"})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == 0 || a.Title != "Brief: SNDA call" || a.Created.IsZero() {
		t.Errorf("added %+v", a)
	}
	b, err := s.AddDocument(ctx, Document{Title: "Brief: lunch", Markdown: "text", Origin: "nudge-4"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Document(ctx, a.ID)
	if err != nil || got != a {
		t.Errorf("Document(%d) = %+v, %v; want %+v", a.ID, got, err, a)
	}
	if _, err := s.Document(ctx, 99); !errors.Is(err, ErrNotFound) {
		t.Errorf("Document(99): %v, want ErrNotFound", err)
	}
	for _, tc := range []struct {
		name  string
		agent string
		want  []int64
	}{
		{"the agent's", "s1", []int64{a.ID}},
		{"another agent's", "s2", nil},
		{"every one, newest first", "", []int64{b.ID, a.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := s.Documents(ctx, tc.agent, 10)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, d := range ds {
				ids = append(ids, d.ID)
			}
			if len(ids) != len(tc.want) || (len(ids) > 0 && ids[0] != tc.want[0]) {
				t.Errorf("Documents(%q) = %v, want %v", tc.agent, ids, tc.want)
			}
		})
	}
	for _, bad := range []Document{{Title: " ", Markdown: "x"}, {Title: "t", Markdown: "\n"}} {
		if _, err := s.AddDocument(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("AddDocument(%+v): %v, want ErrInvalid", bad, err)
		}
	}
}
