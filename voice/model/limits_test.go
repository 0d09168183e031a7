package model

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDownloadBound: a server that streams on and on, or says up front
// that it will send more than the bound, or whose rest of a resumed file
// would take it past the bound, stops the download at the bound with an
// error saying so; the oversized file is not kept for resuming.
func TestDownloadBound(t *testing.T) {
	const bound = 1 << 20
	m := fakeModel([]byte("the real model"))
	chunk := bytes.Repeat([]byte("w"), 32<<10)
	for _, tc := range []struct {
		name    string
		declare bool // send a Content-Length over the bound
		resume  bool // a file of just under the bound is there, the server has more
	}{
		{"streams forever", false, false},
		{"declares too much", true, false},
		{"resumed past the bound", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			whole := bytes.Repeat([]byte("w"), bound+bound/4)
			if tc.resume {
				if err := os.MkdirAll(Dir(dir), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(Dir(dir), m.File()+".part"), whole[:bound-1000], 0o600); err != nil {
					t.Fatal(err)
				}
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.resume {
					http.ServeContent(w, r, m.File(), time.Time{}, bytes.NewReader(whole))
					return
				}
				if tc.declare {
					w.Header().Set("Content-Length", strconv.Itoa(4*bound))
				}
				for {
					if _, err := w.Write(chunk); err != nil {
						return // the client went
					}
				}
			}))
			t.Cleanup(srv.Close)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err := download(ctx, srv.Client(), srv.URL, m, dir, nil, limits{max: bound, stall: 10 * time.Second})
			if err == nil || !strings.Contains(err.Error(), "more than 1 MiB") {
				t.Fatalf("err = %v, want one saying the download passed 1 MiB", err)
			}
			if _, err := os.Stat(filepath.Join(Dir(dir), m.File()+".part")); !os.IsNotExist(err) {
				t.Errorf("the oversized download was kept to resume: %v", err)
			}
		})
	}
}

// TestDownloadStall: a server that drips the file, a few bytes at a time
// more often than the stall allows, and then sends nothing more, fails
// the download once it has been silent for the stall, with an error that
// says so; what came is kept to resume. The drip lasts longer than the
// stall: only silence counts, not a slow download.
func TestDownloadStall(t *testing.T) {
	const stall = time.Second
	const drops = 10
	m := fakeModel([]byte("the real model"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		for range drops {
			w.Write([]byte("ggml"))
			w.(http.Flusher).Flush()
			time.Sleep(stall / 6) // the drip's pace: the server's behaviour, not synchronisation
		}
		<-r.Context().Done() // then nothing, until the client goes
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	dir := t.TempDir()
	start := time.Now()
	_, err := download(ctx, srv.Client(), srv.URL, m, dir, nil, limits{max: 1 << 20, stall: stall})
	if err == nil || !strings.Contains(err.Error(), "sent nothing for 1s") || ctx.Err() != nil {
		t.Fatalf("err = %v after %s, want one saying the server sent nothing for 1s", err, time.Since(start).Round(time.Millisecond))
	}
	st, err := os.Stat(filepath.Join(Dir(dir), m.File()+".part"))
	if err != nil || st.Size() != 4*drops {
		t.Errorf("kept to resume: %v, %v; want the %d bytes that came", st, err, 4*drops)
	}
}

// TestDownloadBoundFitsCatalog: the bound is above every model Spirit
// offers (small.en, 466 MiB, is the largest) and not far above, so that a
// model added to the catalog cannot outgrow it unnoticed.
func TestDownloadBoundFitsCatalog(t *testing.T) {
	var largest int64
	for _, m := range Catalog() {
		mib, err := strconv.ParseInt(strings.TrimSuffix(m.Approx, " MiB"), 10, 64)
		if err != nil {
			t.Fatalf("%s: size %q: %v", m.Name, m.Approx, err)
		}
		largest = max(largest, mib<<20)
	}
	if MaxBytes <= largest || MaxBytes > largest+largest/4 {
		t.Errorf("MaxBytes = %d MiB, want above the largest model's %d MiB and within a quarter of it", MaxBytes>>20, largest>>20)
	}
}
