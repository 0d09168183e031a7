package imap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/spirit-app/spirit/agents/mail"
)

// echoCredentials answers LOGIN as some servers do: with the credentials
// it received in the NO.
func echoCredentials(user, password string) error {
	return &goimap.Error{Type: goimap.StatusResponseTypeNo, Text: fmt.Sprintf("invalid credentials: %q %q", user, password)}
}

// TestServerTextsAreScrubbed: whatever a server echoes of the credentials
// reaches neither the connector's errors nor its log.
func TestServerTextsAreScrubbed(t *testing.T) {
	syncAll := func(c *Connector) error {
		_, err := c.Sync(context.Background(), "", func(mail.Message) error { return nil })
		return err
	}
	tests := []struct {
		name    string
		setup   func(ts *testServer)
		run     func(c *Connector) error
		wantErr error // nil: the call succeeds, and only the log is checked
	}{
		{"login refused, Verify", func(ts *testServer) { ts.loginErr = echoCredentials },
			func(c *Connector) error { return c.Verify(context.Background()) }, ErrAuth},
		{"login refused, Sync", func(ts *testServer) { ts.loginErr = echoCredentials },
			syncAll, ErrAuth},
		{"login refused, CreateDraft", func(ts *testServer) { ts.loginErr = echoCredentials },
			func(c *Connector) error {
				_, err := c.CreateDraft(context.Background(), mail.Draft{To: []mail.Address{{Email: "marcy@example.com"}}, Subject: "Re: SNDA", Body: "Hi"})
				return err
			}, ErrAuth},
		{"fetch refused, logged", func(ts *testServer) {
			ts.appendRaw(t, "INBOX", newMessage("m", "<m@test>"))
			ts.poison = 1
			ts.poisonText = fmt.Sprintf("message unavailable for %s (session %s)", testUser, testPassword)
		}, syncAll, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, serverOpts{})
			tt.setup(ts)
			var log bytes.Buffer
			cfg := ts.config()
			cfg.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
			c := newConnector(t, cfg)

			err := tt.run(c)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				got := err.Error()
				if strings.Contains(got, testPassword) || strings.Contains(got, testUser) {
					t.Errorf("error holds the credentials: %s", got)
				}
				if !strings.Contains(got, "[redacted]") {
					t.Errorf("error lost the server's words instead of scrubbing them: %s", got)
				}
			}
			// The log names the account (its "user" attribute) but never
			// repeats what the server echoed.
			if got := log.String(); strings.Contains(got, testPassword) || strings.Contains(got, "for "+testUser) {
				t.Errorf("log holds the credentials:\n%s", got)
			}
			if tt.wantErr == nil && !strings.Contains(log.String(), "[redacted]") {
				t.Errorf("the refusal was not logged:\n%s", log.String())
			}
		})
	}
}
