package calendar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
	"github.com/spirit-app/spirit/agents/store"
)

// Case is one labelled calendar case (see the cases README, calendar/).
type Case struct {
	ID     string `json:"id"`
	Now    string `json:"now"`
	Me     Me     `json:"me"`
	Expect struct {
		Nudge        bool     `json:"nudge"`
		EventUID     string   `json:"event_uid"`
		RecurrenceID *string  `json:"recurrence_id"`
		MessageIDs   []string `json:"message_ids"`
	} `json:"expect"`
}

// CaseResult is the JSON line EvalDir prints per case.
type CaseResult struct {
	ID           string   `json:"id"`
	Nudge        bool     `json:"nudge"`
	EventUID     *string  `json:"event_uid"`
	RecurrenceID *string  `json:"recurrence_id"`
	MessageIDs   []string `json:"message_ids"`
	Error        string   `json:"error,omitempty"`
}

// EvalDir runs Brief on every case folder under root/calendar and reports
// each failure (or, with jsonOut, every result as a JSON line), then the
// line "N passed, N failed". A case that cannot be run counts as failed;
// err is only for a root that cannot be read or a writer that fails.
func EvalDir(ctx context.Context, root string, w io.Writer, jsonOut bool) (passed, failed int, err error) {
	dir := filepath.Join(root, "calendar")
	des, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("eval calendar cases: %w", err)
	}
	tmp, err := os.MkdirTemp("", "calendar-eval-")
	if err != nil {
		return 0, 0, fmt.Errorf("eval calendar cases: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		caseDir := filepath.Join(dir, de.Name())
		if _, err := os.Stat(filepath.Join(caseDir, "case.json")); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		c, d, runErr := RunCase(ctx, caseDir, filepath.Join(tmp, de.Name()+".db"))
		if ctx.Err() != nil {
			return passed, failed, fmt.Errorf("eval calendar cases: %w", ctx.Err())
		}
		r := result(c, d)
		if r.ID == "" {
			r.ID = de.Name()
		}
		ok := runErr == nil && matches(c, r)
		if ok {
			passed++
		} else {
			failed++
		}
		var werr error
		switch {
		case jsonOut:
			if runErr != nil {
				r.Error = runErr.Error()
			}
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false) // Message-IDs keep their angle brackets readable
			werr = enc.Encode(r)
		case runErr != nil:
			_, werr = fmt.Fprintf(w, "FAIL %s: %v\n", de.Name(), runErr)
		case !ok:
			_, werr = fmt.Fprintf(w, "FAIL %s: got nudge=%v event_uid=%s recurrence_id=%s message_ids=%v (%s), want nudge=%v event_uid=%s recurrence_id=%s message_ids=%v\n",
				de.Name(), r.Nudge, deref(r.EventUID), deref(r.RecurrenceID), r.MessageIDs, d.Reason,
				c.Expect.Nudge, c.Expect.EventUID, deref(c.Expect.RecurrenceID), c.Expect.MessageIDs)
		}
		if werr != nil {
			return passed, failed, fmt.Errorf("eval calendar cases: %w", werr)
		}
	}
	if _, err := fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed); err != nil {
		return passed, failed, fmt.Errorf("eval calendar cases: %w", err)
	}
	return passed, failed, nil
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// result is a decision as the cases state it.
func result(c Case, d Decision) CaseResult {
	r := CaseResult{ID: c.ID, Nudge: d.Nudge, MessageIDs: []string{}}
	if !d.Nudge || d.Meeting == nil {
		return r
	}
	uid := d.Meeting.UID
	r.EventUID = &uid
	if d.Meeting.Recurring() {
		rid := d.Meeting.RecurrenceID.Format(time.RFC3339)
		r.RecurrenceID = &rid
	}
	for _, t := range d.Threads {
		r.MessageIDs = append(r.MessageIDs, t.MessageID)
	}
	return r
}

// matches compares a result with the case: the same instant for the
// recurrence id whatever its offset, message ids in any order.
func matches(c Case, r CaseResult) bool {
	if r.Nudge != c.Expect.Nudge {
		return false
	}
	if !c.Expect.Nudge {
		return true
	}
	if r.EventUID == nil || *r.EventUID != c.Expect.EventUID {
		return false
	}
	switch {
	case c.Expect.RecurrenceID == nil || r.RecurrenceID == nil:
		if (c.Expect.RecurrenceID == nil) != (r.RecurrenceID == nil) {
			return false
		}
	default:
		want, err1 := time.Parse(time.RFC3339, *c.Expect.RecurrenceID)
		got, err2 := time.Parse(time.RFC3339, *r.RecurrenceID)
		if err1 != nil || err2 != nil || !want.Equal(got) {
			return false
		}
	}
	got, want := slices.Clone(r.MessageIDs), slices.Clone(c.Expect.MessageIDs)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

// RunCase builds a fresh mail index from the case's mailbox in dbPath,
// expands its calendar around now (floating times in now's offset) and
// decides.
func RunCase(ctx context.Context, caseDir, dbPath string) (Case, Decision, error) {
	var c Case
	b, err := os.ReadFile(filepath.Join(caseDir, "case.json"))
	if err != nil {
		return c, Decision{}, fmt.Errorf("read case: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, Decision{}, fmt.Errorf("parse case: %w", err)
	}
	now, err := time.Parse(time.RFC3339, c.Now)
	if err != nil {
		return c, Decision{}, fmt.Errorf("parse now: %w", err)
	}
	f, err := os.Open(filepath.Join(caseDir, "calendar.ics"))
	if err != nil {
		return c, Decision{}, fmt.Errorf("read calendar: %w", err)
	}
	cal, err := Parse(f)
	f.Close()
	if err != nil {
		return c, Decision{}, err
	}
	occs, err := Occurrences(cal, now.Add(-time.Hour), now.Add(24*time.Hour), now.Location())
	if err != nil {
		return c, Decision{}, err
	}
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		return c, Decision{}, fmt.Errorf("open store: %w", err)
	}
	defer st.Close()
	ix := index.New(st)
	if path := filepath.Join(caseDir, "mailbox.mbox"); fileExists(path) && len(c.Me.Addresses) > 0 {
		if err := loadMbox(ctx, ix, path, c.ID, c.Me); err != nil {
			return c, Decision{}, err
		}
	}
	d, err := Brief(ctx, now, c.Me, occs, MailThreads(ix, c.Me, now))
	return c, d, err
}

// loadMbox indexes an mbox file as the lawyer's mail account.
func loadMbox(ctx context.Context, ix *index.Index, path, name string, me Me) error {
	acc, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMbox, Name: name, Address: me.Addresses[0], Aliases: me.Addresses[1:]})
	if err != nil {
		return fmt.Errorf("add account: %w", err)
	}
	conn, err := mbox.OpenMbox(path, mbox.Options{From: mail.Address{Name: me.Name, Email: me.Addresses[0]}})
	if err != nil {
		return fmt.Errorf("open mailbox: %w", err)
	}
	if _, err := ix.Sync(ctx, acc.ID, conn, nil); err != nil {
		return fmt.Errorf("sync mailbox: %w", err)
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
