package scripted

import (
	"net/http"
	"strings"
	"testing"
)

func TestUnknownPathIsNotFound(t *testing.T) {
	s := New(t)
	res, err := http.Post(s.URL()+"/v1/embeddings", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound || len(s.Requests()) != 0 {
		t.Errorf("status %d, %d recorded", res.StatusCode, len(s.Requests()))
	}
}

func TestRetryAfterHeaderAndCredentialsStripped(t *testing.T) {
	s := New(t, HTTPError(http.StatusTooManyRequests, "7"))
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/v1/messages",
		strings.NewReader(`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("X-Api-Key", "secret")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "7" {
		t.Errorf("status %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	r := s.Requests()[0]
	if r.Header.Get("X-Api-Key") != "" || len(r.AuthHeaders) != 1 || r.AuthHeaders[0] != "X-Api-Key" {
		t.Errorf("credentials not stripped: %v %v", r.Header, r.AuthHeaders)
	}
	if r.Header.Get("Anthropic-Version") != "2023-06-01" || r.Model != "m" || r.Messages[0].Text != "hi" {
		t.Errorf("recorded %+v", r)
	}
}

func TestParseDataURL(t *testing.T) {
	mime, data, err := parseDataURL("data:image/jpeg;base64,AAEC")
	if err != nil || mime != "image/jpeg" || len(data) != 3 {
		t.Errorf("got %q %v %v", mime, data, err)
	}
	for _, bad := range []string{"https://example.com/a.png", "data:image/png,raw", "data:image/png;base64"} {
		if _, _, err := parseDataURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
