// Package model finds, downloads and verifies whisper.cpp speech models.
package model

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/httpguard"
)

// DefaultBaseURL is the whisper.cpp model repository on Hugging Face.
const DefaultBaseURL = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main"

// Model is one downloadable speech model.
type Model struct {
	Name   string // "base.en"
	SHA1   string // from whisper.cpp's models/README.md
	Approx string // size for people
	Note   string
}

// File is the model's file name in the repository and in the models folder.
func (m Model) File() string { return "ggml-" + m.Name + ".bin" }

// Catalog lists the English models Spirit offers; base.en is the default.
var catalog = []Model{
	{Name: "tiny.en", SHA1: "c78c86eb1a8faa21b369bcd33207cc90d64ae9df", Approx: "75 MiB", Note: "fastest, least accurate"},
	{Name: "base.en", SHA1: "137c40403d78fd54d454da0f9bd998f78703390c", Approx: "142 MiB", Note: "default: good for commands"},
	{Name: "small.en", SHA1: "db8a495a91d927739e50b3fc1cc4c6b8f6c2d022", Approx: "466 MiB", Note: "more accurate, slower"},
}

// Default is the model Spirit suggests.
const Default = "base.en"

// Catalog returns the models Spirit can download.
func Catalog() []Model { return append([]Model(nil), catalog...) }

// Lookup finds a model by name.
func Lookup(name string) (Model, error) {
	for _, m := range catalog {
		if m.Name == name {
			return m, nil
		}
	}
	names := make([]string, len(catalog))
	for i, m := range catalog {
		names[i] = m.Name
	}
	return Model{}, fmt.Errorf("unknown model %q (choose one of %v)", name, names)
}

// Dir is where models live inside Spirit's data directory.
func Dir(dataDir string) string { return filepath.Join(dataDir, "models") }

// Installed lists model files present in dir, best (largest catalog entry) first.
func Installed(dataDir string) []string {
	var out []string
	for i := len(catalog) - 1; i >= 0; i-- {
		p := filepath.Join(Dir(dataDir), catalog[i].File())
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	others, _ := filepath.Glob(filepath.Join(Dir(dataDir), "ggml-*.bin"))
	sort.Strings(others)
	for _, p := range others {
		if !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Find returns the model file Spirit should load: the one named by
// preferred if installed, else the best installed one.
func Find(dataDir, preferred string) (string, error) {
	if preferred != "" {
		if m, err := Lookup(preferred); err == nil {
			p := filepath.Join(Dir(dataDir), m.File())
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	if inst := Installed(dataDir); len(inst) > 0 {
		return inst[0], nil
	}
	return "", ErrNoModel
}

// ErrNoModel means no speech model is installed.
var ErrNoModel = errors.New("no speech model: run `spirit model download " + Default + "`")

// Progress reports bytes done of total (total is 0 when unknown).
type Progress func(done, total int64)

// Bounds of a download. MaxBytes is somewhat above the largest model
// Spirit offers (small.en, 466 MiB): whatever base URL it is given
// ($SPIRIT_MODEL_URL), a download never fills the disk. StallTimeout is
// how long the server may send nothing before the download stops (it can
// be resumed); a slow download that keeps coming runs as long as it
// takes.
const (
	MaxBytes     = 512 << 20
	StallTimeout = 30 * time.Second
)

// limits are a download's bounds; tests make them small.
type limits struct {
	max   int64
	stall time.Duration
}

// Download fetches m into dataDir/models, resuming a partial download and
// checking the SHA-1 before the file takes its final name, so a model on
// disk is always a whole, verified one. It stops at MaxBytes, and when the
// server sends nothing for StallTimeout. client nil is http.DefaultClient;
// a redirect (Hugging Face sends the file from its CDN) is followed, with
// no credential or Referer to another origin.
func Download(ctx context.Context, client *http.Client, baseURL string, m Model, dataDir string, progress Progress) (string, error) {
	return download(ctx, client, baseURL, m, dataDir, progress, limits{max: MaxBytes, stall: StallTimeout})
}

func download(ctx context.Context, client *http.Client, baseURL string, m Model, dataDir string, progress Progress, lim limits) (string, error) {
	dir := Dir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create models folder: %w", err)
	}
	final := filepath.Join(dir, m.File())
	part := final + ".part"

	f, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", part, err)
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return "", fmt.Errorf("seek %s: %w", part, err)
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/"+m.File(), nil)
	if err != nil {
		return "", err
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	// fail says why the download stopped. A server sending more than any
	// model is not resumed: its file goes.
	fail := func(kept int64, err error) (string, error) {
		if errors.Is(err, httpguard.ErrTooLarge) {
			f.Close()
			os.Remove(part)
		}
		return "", downloadError(m, kept, lim, err)
	}
	// One answer's body is bounded here, the file as a whole (what a
	// resumed download adds to) by the writer below.
	hc := httpguard.StripElsewhere(client)
	hc.Transport = httpguard.StallTimeout(httpguard.LimitBody(httpguard.Transport(client), lim.max), lim.stall)
	resp, err := hc.Do(req)
	if err != nil {
		return fail(have, err)
	}
	defer resp.Body.Close()

	var total int64
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		total = have + resp.ContentLength
	case resp.StatusCode == http.StatusOK:
		// The server ignored the range: start over.
		if err := f.Truncate(0); err != nil {
			return "", err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return "", err
		}
		have, total = 0, resp.ContentLength
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		total = have // already complete: verify below
	default:
		return "", fmt.Errorf("download %s: server answered %s", m.Name, resp.Status)
	}
	if total > lim.max {
		return fail(have, &httpguard.TooLargeError{Limit: lim.max})
	}
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		w := &progressWriter{w: f, done: have, total: total, report: progress, max: lim.max}
		if _, err := io.Copy(w, resp.Body); err != nil {
			return fail(w.done, err)
		}
		w.flush()
		if total > 0 && w.done != total {
			return "", fmt.Errorf("download %s: got %d of %d bytes (run the command again to resume)", m.Name, w.done, total)
		}
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	sum, err := fileSHA1(part)
	if err != nil {
		return "", err
	}
	if sum != m.SHA1 {
		os.Remove(part) // a corrupt file must not be resumed
		return "", fmt.Errorf("download %s: checksum %s does not match %s; the file was removed, try again", m.Name, sum, m.SHA1)
	}
	if err := os.Rename(part, final); err != nil {
		return "", fmt.Errorf("install %s: %w", final, err)
	}
	return final, nil
}

// downloadError says why a download stopped, and what is kept to resume
// it.
func downloadError(m Model, kept int64, lim limits, err error) error {
	var stalled *httpguard.StallError
	switch {
	case errors.Is(err, httpguard.ErrTooLarge):
		return fmt.Errorf("download %s: the server sent more than %d MiB, more than any speech model Spirit offers, so the download was stopped and what came removed",
			m.Name, lim.max>>20)
	case errors.As(err, &stalled):
		return fmt.Errorf("download %s: the server sent nothing for %s, so the download stopped; try again to resume it (%d bytes kept)", m.Name, stalled.After, kept)
	}
	return fmt.Errorf("download %s (kept %d bytes to resume): %w", m.Name, kept, err)
}

func fileSHA1(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha1.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("checksum %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// progressWriter reports progress at most a few times a second, and
// refuses to make the file longer than max.
type progressWriter struct {
	w                io.Writer
	done, total, max int64
	report           Progress
	last             time.Time
}

func (p *progressWriter) Write(b []byte) (int, error) {
	if p.done+int64(len(b)) > p.max {
		return 0, &httpguard.TooLargeError{Limit: p.max}
	}
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.report != nil && time.Since(p.last) > 200*time.Millisecond {
		p.last = time.Now()
		p.report(p.done, p.total)
	}
	return n, err
}

func (p *progressWriter) flush() {
	if p.report != nil {
		p.report(p.done, p.total)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Status is one model's state in a data folder.
type Status struct {
	Model
	Path    string // the installed, verified file; "" when not installed
	Size    int64  // the installed file's size in bytes
	Partial int64  // bytes of an unfinished download, kept to resume it
}

// Installed reports whether the model's file is there.
func (s Status) Installed() bool { return s.Path != "" }

// Statuses is the state of each model of models (Catalog, or a test's own)
// in dataDir, in the order given.
func Statuses(dataDir string, models []Model) []Status {
	out := make([]Status, len(models))
	for i, m := range models {
		s := Status{Model: m}
		p := filepath.Join(Dir(dataDir), m.File())
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			s.Path, s.Size = p, st.Size()
		}
		if st, err := os.Stat(p + ".part"); err == nil && st.Mode().IsRegular() {
			s.Partial = st.Size()
		}
		out[i] = s
	}
	return out
}

// Remove deletes m's file from dataDir, and what an unfinished download of
// it kept. A model that is not there is not an error.
func Remove(dataDir string, m Model) error {
	p := filepath.Join(Dir(dataDir), m.File())
	for _, name := range []string{p, p + ".part"} {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", m.Name, err)
		}
	}
	return nil
}

// DownloadCommand is what to type to download the default model into
// dataDir: --data-dir is named unless dataDir is defaultDir (the folder
// Spirit uses when none is given), or the model would go where this Spirit
// never looks.
func DownloadCommand(dataDir, defaultDir string) string {
	cmd := "spirit model download " + Default
	if dataDir == "" || (defaultDir != "" && filepath.Clean(dataDir) == filepath.Clean(defaultDir)) {
		return cmd
	}
	return cmd + " --data-dir " + shellQuote(dataDir)
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@%=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
