package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	helperEnv   = "SPIRIT_STORE_CRASH_HELPER"
	helperDBEnv = "SPIRIT_STORE_CRASH_DB"
)

func crashText(i int) string {
	return fmt.Sprintf("crash event %d: nothing acknowledged may be lost", i)
}

// TestHelperWriter is not a test: it is the child process of
// TestCrashKeepsAcknowledgedAppends. It appends events as fast as it can and
// prints "id i" for each one only after AppendEvent returned, i.e. after the
// commit was acknowledged.
func TestHelperWriter(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process for TestCrashKeepsAcknowledgedAppends")
	}
	// Never outlive a parent that forgot us.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Open(ctx, os.Getenv(helperDBEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := 0; ctx.Err() == nil; i++ {
		e, err := s.AppendEvent(ctx, Event{Source: "crash", Identifier: strconv.Itoa(i), Text: crashText(i)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		// os.Stdout is unbuffered: once this returns the parent can read it.
		if _, err := fmt.Printf("%d %d\n", e.ID, i); err != nil {
			os.Exit(4)
		}
	}
	os.Exit(5)
}

// TestCrashKeepsAcknowledgedAppends SIGKILLs a writer in the middle of its
// appends, several times, and checks that the database opens, is intact and
// holds every entry the writer had acknowledged.
func TestCrashKeepsAcknowledgedAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), FileName)
	acked := make(map[int64]string) // id → text, across all rounds
	const rounds, minAcks = 4, 200

	for round := range rounds {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"=1", helperDBEnv+"="+path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Vary the moment of the kill a little from round to round.
		target := minAcks + 37*round
		sc := bufio.NewScanner(out)
		n, killed := 0, false
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 2 {
				t.Fatalf("round %d: bad helper line %q", round, sc.Text())
			}
			id, err1 := strconv.ParseInt(f[0], 10, 64)
			i, err2 := strconv.Atoi(f[1])
			if err1 != nil || err2 != nil {
				t.Fatalf("round %d: bad helper line %q", round, sc.Text())
			}
			acked[id] = crashText(i)
			n++
			if n == target && !killed {
				// The child is mid-append: it never stops between lines.
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				killed = true
			}
			// Keep reading: lines already in the pipe were acknowledged too.
		}
		err = cmd.Wait()
		if !killed {
			t.Fatalf("round %d: helper exited after %d acks: %v\n%s", round, n, err, stderr.String())
		}
		t.Logf("round %d: killed after %d acknowledged appends (%v)", round, n, err)

		s, err := Open(t.Context(), path)
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		var integrity string
		if err := s.w.QueryRowContext(t.Context(), `PRAGMA integrity_check`).Scan(&integrity); err != nil {
			t.Fatal(err)
		}
		if integrity != "ok" {
			t.Fatalf("round %d: integrity_check: %s", round, integrity)
		}
		es, err := s.Since(t.Context(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		have := make(map[int64]string, len(es))
		for _, e := range es {
			have[e.ID] = e.Text
		}
		for id, text := range acked {
			got, ok := have[id]
			if !ok {
				t.Fatalf("round %d: acknowledged entry %d lost", round, id)
			}
			if got != text {
				t.Fatalf("round %d: entry %d text %q, want %q", round, id, got, text)
			}
		}
		// Ids are gapless: the writer commits in order, so nothing acknowledged
		// can sit behind a hole.
		for i, e := range es {
			if e.ID != int64(i+1) {
				t.Fatalf("round %d: id %d at position %d", round, e.ID, i)
			}
		}
		t.Logf("round %d: %d acknowledged, %d stored", round, len(acked), len(es))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
