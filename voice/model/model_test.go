package model

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// modelServer serves one file with Range support, optionally cutting the
// first response short to simulate a dropped connection.
func modelServer(t *testing.T, name string, body []byte, cutAt int64) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		if r.URL.Path != "/"+name {
			http.NotFound(w, r)
			return
		}
		if n == 1 && cutAt > 0 {
			// Promise the whole file, send part, then drop the connection.
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusOK)
			w.Write(body[:cutAt])
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

func fakeModel(body []byte) Model {
	s := sha1.Sum(body)
	return Model{Name: "test.en", SHA1: hex.EncodeToString(s[:])}
}

func TestDownloadResumesAndVerifies(t *testing.T) {
	body := bytes.Repeat([]byte("ggml-weights-"), 50_000)
	m := fakeModel(body)
	srv, requests := modelServer(t, m.File(), body, int64(len(body)/3))
	dir := t.TempDir()
	ctx := context.Background()

	// First attempt is cut short: an error that says how to resume, bytes kept.
	_, err := Download(ctx, srv.Client(), srv.URL, m, dir, nil)
	if err == nil {
		t.Fatal("interrupted download reported success")
	}
	part := filepath.Join(Dir(dir), m.File()+".part")
	st, err := os.Stat(part)
	if err != nil || st.Size() == 0 {
		t.Fatalf("partial file not kept: %v", err)
	}

	// Second attempt resumes with a Range request and installs the verified file.
	var last [2]int64
	path, err := Download(ctx, srv.Client(), srv.URL, m, dir, func(done, total int64) { last = [2]int64{done, total} })
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("installed file differs (%d bytes, %v)", len(got), err)
	}
	if last[0] != int64(len(body)) || last[1] != int64(len(body)) {
		t.Errorf("last progress %v, want %d of %d", last, len(body), len(body))
	}
	if requests.Load() != 2 {
		t.Errorf("%d requests, want 2", requests.Load())
	}
	if _, err := os.Stat(part); !os.IsNotExist(err) {
		t.Error(".part file left behind")
	}
	if p, err := Find(dir, ""); err != nil || p != path {
		t.Errorf("Find = %q, %v", p, err)
	}
}

func TestDownloadRejectsWrongChecksum(t *testing.T) {
	body := []byte("not the model you are looking for")
	m := fakeModel([]byte("the real model"))
	srv, _ := modelServer(t, m.File(), body, 0)
	dir := t.TempDir()
	_, err := Download(context.Background(), srv.Client(), srv.URL, m, dir, nil)
	if err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("err = %v, want a checksum error", err)
	}
	if inst := Installed(dir); len(inst) != 0 {
		t.Errorf("corrupt model installed: %v", inst)
	}
	if _, err := os.Stat(filepath.Join(Dir(dir), m.File()+".part")); !os.IsNotExist(err) {
		t.Error("corrupt .part kept for resuming")
	}
}

func TestDownloadServerError(t *testing.T) {
	m := fakeModel([]byte("x"))
	srv, _ := modelServer(t, "other.bin", nil, 0)
	_, err := Download(context.Background(), srv.Client(), srv.URL, m, t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v, want the server's 404", err)
	}
}

func TestFindWithoutModel(t *testing.T) {
	if _, err := Find(t.TempDir(), Default); err != ErrNoModel {
		t.Fatalf("err = %v, want ErrNoModel", err)
	}
	if _, err := Lookup("huge.en"); err == nil {
		t.Fatal("unknown model accepted")
	}
}

func TestDownloadCommand(t *testing.T) {
	for _, tc := range []struct {
		name, dir, def, want string
	}{
		{"the default folder", "/home/dana/.local/share/spirit", "/home/dana/.local/share/spirit", "spirit model download base.en"},
		{"the default folder, written differently", "/home/dana/.local/share/spirit/", "/home/dana/.local/share/spirit", "spirit model download base.en"},
		{"another folder", "/srv/spirit", "/home/dana/.local/share/spirit", "spirit model download base.en --data-dir /srv/spirit"},
		{"a folder with a space and an apostrophe", "/home/dana/Dana's Spirit", "/home/dana/.local/share/spirit",
			`spirit model download base.en --data-dir '/home/dana/Dana'\''s Spirit'`},
		{"no default known", "/srv/spirit", "", "spirit model download base.en --data-dir /srv/spirit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DownloadCommand(tc.dir, tc.def); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStatusesAndRemove(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	tiny, base := Catalog()[0], Catalog()[1]
	if err := os.WriteFile(filepath.Join(Dir(dir), tiny.File()), make([]byte, 100), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(Dir(dir), base.File()+".part"), make([]byte, 40), 0o600); err != nil {
		t.Fatal(err)
	}
	st := Statuses(dir, Catalog())
	if !st[0].Installed() || st[0].Size != 100 || st[1].Installed() || st[1].Partial != 40 || st[2].Installed() || st[2].Partial != 0 {
		t.Fatalf("statuses %+v", st)
	}
	for _, m := range []Model{tiny, base, Catalog()[2]} {
		if err := Remove(dir, m); err != nil {
			t.Fatalf("remove %s: %v", m.Name, err)
		}
	}
	if left, _ := os.ReadDir(Dir(dir)); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}
