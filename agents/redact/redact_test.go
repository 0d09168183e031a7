package redact

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

const (
	user = "nadia.petrov@callowayfinch.com"
	pass = "app-password-1234"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestString(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		text    string
		want    string
	}{
		// Known secrets, in the forms servers echo them.
		{"IMAP LOGIN echoed", []string{user, pass},
			`NO invalid credentials: "nadia.petrov@callowayfinch.com" "app-password-1234"`,
			`NO invalid credentials: "[redacted]" "[redacted]"`},
		{"user name in another case", []string{user, pass},
			`NO unknown user NADIA.PETROV@CallowayFinch.com`,
			`NO unknown user [redacted]`},
		{"escaped quote and backslash", []string{`pa"ss\word`},
			`NO bad password "pa\"ss\\word"`,
			`NO bad password "[redacted]"`},
		{"URL-encoded", []string{`p@ss w/rd!`},
			`GET /login?u=dana&p=p%40ss+w%2Frd%21 failed; path /p%40ss%20w%2Frd%21`,
			`GET /login?u=dana&p=[redacted] failed; path /[redacted]`},
		{"HTML-escaped", []string{`a<b>&c"dx`},
			`<p>wrong secret a&lt;b&gt;&amp;c&#34;dx</p>`,
			`<p>wrong secret [redacted]</p>`},
		{"JSON-escaped with PHP slashes", []string{`abc/def+ghi`},
			`{"message":"bad key abc\/def+ghi"}`,
			`{"message":"bad key [redacted]"}`},
		{"JSON-escaped HTML characters", []string{`x<y>&z123`},
			`{"message":"bad key x\u003cy\u003e\u0026z123"}`,
			`{"message":"bad key [redacted]"}`},
		{"AUTHENTICATE PLAIN echoed in base64", []string{user, pass},
			"BAD cannot decode " + b64("\x00"+user+"\x00"+pass) + " (Failure)",
			"BAD cannot decode [redacted] (Failure)"},
		{"XOAUTH2 echoed in base64", []string{"EwBwA8l6BAAUtoken"},
			"NO bad response " + base64.RawURLEncoding.EncodeToString([]byte("user=dana@x.com\x01auth=Bearer EwBwA8l6BAAUtoken\x01\x01")),
			"NO bad response [redacted]"},
		{"Basic credential echoed", []string{"dana", "hunter22"},
			"401 for Basic " + b64("dana:hunter22"),
			"401 for Basic [redacted]"},

		// Short secrets: only where they cannot be part of a word.
		{"three letters stand alone", []string{"dan"},
			`user dan@x.com unknown; dan's mailbox; Dana and dandelion stay`,
			`user [redacted]@x.com unknown; [redacted]'s mailbox; Dana and dandelion stay`},
		{"two letters only quoted", []string{"ab"},
			`NO about "ab" at tab 'ab' ab`,
			`NO about "[redacted]" at tab '[redacted]' ab`},
		{"one letter not everywhere", []string{"a"},
			`a bad password for "a"`,
			`a bad password for "[redacted]"`},

		// Credential-shaped text, whoever it belongs to.
		{"Authorization Bearer header", nil,
			"request headers: Authorization: Bearer ya29.a0AfH6SMBxyz\r\nAccept: */*",
			"request headers: Authorization: Bearer [redacted]\r\nAccept: */*"},
		{"Authorization Basic header", nil,
			"authorization: Basic dXNlcjpwYXNz",
			"authorization: Basic [redacted]"},
		{"bare bearer token", nil,
			"auth=Bearer 0.AXoA-token-value",
			"auth=Bearer [redacted]"},
		{"query string", nil,
			"GET /v1/me?access_token=abc123&$top=10 failed",
			"GET /v1/me?access_token=[redacted]&$top=10 failed"},
		{"form body", nil,
			"body: grant_type=refresh_token&refresh_token=r-9f8e7d&client_id=c1&client_secret=GOCSPX-abc",
			"body: grant_type=refresh_token&refresh_token=[redacted]&client_id=c1&client_secret=[redacted]"},
		{"JSON fields", nil,
			`{"error":"invalid_client","client_secret":"GOCSPX-abc","refresh_token":"r-1","password":"p\"w"}`,
			`{"error":"invalid_client","client_secret":"[redacted]","refresh_token":"[redacted]","password":"[redacted]"}`},
		{"JSON inside a JSON string", nil,
			`{"message":"bad body {\"api_key\":\"k-123\",\"n\":1}"}`,
			`{"message":"bad body {\"api_key\":\"[redacted]\",\"n\":1}"}`},
		{"x-api-key header", nil,
			"x-api-key: k-0123456789, anthropic-version: 2023-06-01",
			"x-api-key: [redacted], anthropic-version: 2023-06-01"},
		{"password in prose", nil,
			`invalid password: "hunter2" for user`,
			`invalid password: "[redacted]" for user`},
		{"vendor API key", nil,
			"Incorrect API key provided: sk-proj-abcdefghijklmnopqrstu. You can find your key at https://platform.openai.com.",
			"Incorrect API key provided: [redacted]. You can find your key at https://platform.openai.com."},
		{"Google API key in a URL", nil,
			"GET https://gmail.googleapis.com/x?alt=json&key=AIzaSyA-1234567890abcdefghijklmnopqrstu",
			"GET https://gmail.googleapis.com/x?alt=json&key=[redacted]"},
		{"Google refresh token", nil,
			`token 1//0gAbCdEfGhIjKlMnOpQrStUv revoked`,
			`token [redacted] revoked`},
		{"JWT", nil,
			"token eyJ0eXAiOiJKV1QiLCJhbGc.eyJhdWQiOiJodHRwczov.sig-nat_ure rejected",
			"token [redacted] rejected"},

		// What must stay as it is.
		{"Spirit's own hint", []string{user, pass},
			"imap.example.com rejected the login: check the user name and the password; if the account uses two-step verification, use an app password",
			"imap.example.com rejected the login: check the user name and the password; if the account uses two-step verification, use an app password"},
		{"Gmail's alert", nil,
			"[ALERT] Application-specific password required: https://support.google.com/accounts/answer/185833 (Failure)",
			"[ALERT] Application-specific password required: https://support.google.com/accounts/answer/185833 (Failure)"},
		{"words after Bearer and Basic", nil,
			`Bearer token expired; Basic authentication failed; WWW-Authenticate: Bearer realm="graph"`,
			`Bearer token expired; Basic authentication failed; WWW-Authenticate: Bearer realm="graph"`},
		{"Graph delta link", nil,
			"GET /v1.0/me/mailFolders/inbox/messages/delta?$deltatoken=LztZwWjo5IivWBhyxw5rAKHUB8Kc: 410 Gone",
			"GET /v1.0/me/mailFolders/inbox/messages/delta?$deltatoken=LztZwWjo5IivWBhyxw5rAKHUB8Kc: 410 Gone"},
		{"folder and remote ID", []string{"dan"},
			`imap: fetching from "INBOX/Archive": NO message INBOX/1712345/42 is damaged`,
			`imap: fetching from "INBOX/Archive": NO message INBOX/1712345/42 is damaged`},
		{"empty secret", []string{""},
			"NO try again",
			"NO try again"},
		{"already scrubbed", []string{user, pass},
			`NO "[redacted]" password: [redacted] Authorization: Bearer [redacted] access_token=[redacted]`,
			`NO "[redacted]" password: [redacted] Authorization: Bearer [redacted] access_token=[redacted]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.text, tt.secrets...)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
			if again := String(got, tt.secrets...); again != got {
				t.Errorf("not idempotent: %q became %q", got, again)
			}
		})
	}
}

func TestWith(t *testing.T) {
	base := New(user, pass)
	withTok := base.With("EwB-access-token-42")
	text := `NO "app-password-1234" and EwB-access-token-42`
	if got, want := base.String(text), `NO "[redacted]" and EwB-access-token-42`; got != want {
		t.Errorf("base: got %q, want %q", got, want)
	}
	if got, want := withTok.String(text), `NO "[redacted]" and [redacted]`; got != want {
		t.Errorf("with token: got %q, want %q", got, want)
	}
	var none *Scrubber
	if got, want := none.String("password=x1 and app-password-1234"), "password=[redacted] and app-password-1234"; got != want {
		t.Errorf("nil scrubber: got %q, want %q", got, want)
	}
}

type serverError struct{ text string }

func (e *serverError) Error() string { return e.text }

var errKind = errors.New("authentication failed")

func TestError(t *testing.T) {
	s := New(user, pass)
	raw := &serverError{text: fmt.Sprintf("NO invalid credentials: %q %q", user, pass)}
	err := fmt.Errorf("%w: server said: %w", errKind, s.Error(raw))

	if got, want := err.Error(), `authentication failed: server said: NO invalid credentials: "[redacted]" "[redacted]"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := fmt.Sprintf("%v|%+v|%s", err, err, err); strings.Contains(got, pass) || strings.Contains(got, user) {
		t.Errorf("formatted error leaks: %s", got)
	}
	if !errors.Is(err, errKind) {
		t.Error("errors.Is lost the kind")
	}
	var se *serverError
	if !errors.As(err, &se) || se != raw {
		t.Errorf("errors.As did not reach the server's error: %v", se)
	}

	clean := fs.ErrNotExist
	if got := s.Error(clean); got != clean {
		t.Errorf("an error with nothing to scrub was wrapped: %#v", got)
	}
	if got := s.Error(nil); got != nil {
		t.Errorf("Error(nil) = %v", got)
	}
	if got := Err(errors.New("refresh_token=r-77 rejected")); got.Error() != "refresh_token=[redacted] rejected" {
		t.Errorf("Err = %q", got)
	}
}
