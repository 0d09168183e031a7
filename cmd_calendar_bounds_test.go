package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCalendarCommandsOutsideText: what a calendar says about itself (its
// name, its events, a server's error) reaches the terminal without escape
// sequences or line breaks of its own, and --hours stays within a year.
func TestCalendarCommandsOutsideText(t *testing.T) {
	dir := t.TempDir()
	const evil = "Court\x1b[2J\x1b]0;owned\x07 dates\nAdded Fake (calendar 9): 99 events.\u202e"
	ics := strings.ReplaceAll(icsAround(time.Now()), "SUMMARY:SNDA call", "SUMMARY:SNDA\x1b[31m call\\nsecond line")
	path := filepath.Join(t.TempDir(), "work.ics")
	if err := os.WriteFile(path, []byte(ics), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := runCal(t, dir, "add", path, "--name", evil); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"list"}, {"upcoming"}, {"sync"}} {
		out, err := runCal(t, dir, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%v printed control characters: %q", args, out)
		}
		if strings.Contains(out, "\nAdded Fake") {
			t.Errorf("%v let the calendar's name start a line of its own: %q", args, out)
		}
	}
	for _, h := range []string{"3000000", "0", "8785"} {
		if out, err := runCal(t, dir, "upcoming", "--hours", h); !errors.Is(err, errUsage) || !strings.Contains(out, "from 1 to 8784") {
			t.Errorf("upcoming --hours %s: %v\n%s", h, err, out)
		}
	}
	if out, err := runCal(t, dir, "upcoming", "--hours", "1"); err != nil || !strings.Contains(out, "Nothing in the next 1 hours.") {
		t.Errorf("upcoming --hours 1: %v\n%s", err, out)
	}
}

// TestCalendarAddKeepsOnlyWhatReads: a subscription whose first read
// fails is not kept (the command says why and fails), and adding it again
// once it answers works.
func TestCalendarAddKeepsOnlyWhatReads(t *testing.T) {
	dir := t.TempDir()
	up := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(icsAround(time.Now())))
	}))
	defer srv.Close()
	out, err := runCal(t, dir, "add", srv.URL+"/firm.ics")
	if err == nil || !strings.Contains(out+err.Error(), "not added") {
		t.Fatalf("add of a failing subscription: %v\n%s", err, out)
	}
	if out, _ := runCal(t, dir, "list"); !strings.Contains(out, "No calendars") {
		t.Fatalf("list after the failed add:\n%s", out)
	}
	up = true
	if out, err := runCal(t, dir, "add", srv.URL+"/firm.ics"); err != nil || !strings.Contains(out, "2 events") {
		t.Fatalf("add once it answers: %v\n%s", err, out)
	}
}
