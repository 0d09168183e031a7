package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform/secrets"
)

// This file is what a front end's windows need of the core beyond the
// nudges and toggles: settings, reminders, mail accounts and the model
// provider. A front end never holds the store, the scheduler or the
// keychain itself; each change goes through here, so the world log, the
// scheduler and mail sync hear of it the same way whichever window made it.

// Settings reads the typed settings. An error matching settings.ErrInvalid
// comes with usable settings (defaults where a stored value was not
// valid).
func (c *Core) Settings(ctx context.Context) (settings.Settings, error) {
	return c.settings(ctx)
}

// UpdateSettings loads the settings afresh, applies change, saves them and
// records each key that changed in the world log as by's ("settings.key =
// value"). It returns the keys that changed. A value that is not valid is
// returned as the *settings.FieldError naming its key, so a window can
// show the reason beside that field; nothing is saved then.
func (c *Core) UpdateSettings(ctx context.Context, by string, change func(*settings.Settings)) ([]string, error) {
	c.settingsMu.Lock()
	defer c.settingsMu.Unlock()
	s, err := c.settings(ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		return nil, err
	}
	change(&s)
	changed, err := settings.Save(ctx, c.store, s)
	if err != nil {
		if bad := settings.FieldErrors(err); len(bad) > 0 {
			return nil, bad[0]
		}
		return nil, err
	}
	for _, key := range changed {
		v, _ := s.Value(key)
		c.event(ctx, "user", by, key+" = "+v)
	}
	return changed, nil
}

// VoiceState is the voice pipeline's state and its detail ("" before it
// starts).
func (c *Core) VoiceState() (state, detail string) { return c.voice.State() }

// DatabasePath is the world log's file; its directory is the data
// directory.
func (c *Core) DatabasePath() string { return c.store.Path() }

// LastEventID is the newest world-log id: a window polls it to learn that
// something new was written.
func (c *Core) LastEventID(ctx context.Context) (int64, error) { return c.store.LastID(ctx) }

// Recent is the newest n world-log entries, oldest first.
func (c *Core) Recent(ctx context.Context, n int) ([]store.Entry, error) {
	return c.store.Recent(ctx, n)
}

// Reminders lists the open reminders.
func (c *Core) Reminders(ctx context.Context) ([]store.Reminder, error) { return c.rem.List(ctx) }

// UpdateReminder changes reminder id and wakes the scheduler, so a new time
// is kept.
func (c *Core) UpdateReminder(ctx context.Context, id int64, u store.ReminderUpdate) (store.Reminder, error) {
	r, err := c.store.UpdateReminder(ctx, id, u)
	if err != nil {
		return store.Reminder{}, err
	}
	c.rem.Changed()
	return r, nil
}

// CompleteReminder records that the lawyer did what reminder id asked
// (Done in the Reminders window); its bubble, if shown, goes.
func (c *Core) CompleteReminder(ctx context.Context, id int64) (store.Reminder, error) {
	r, err := c.rem.Complete(ctx, id)
	if err != nil {
		return store.Reminder{}, err
	}
	c.closeNudgesAbout(ctx, nudge.ReminderSubject(id))
	return r, nil
}

// DeleteReminder deletes reminder id and wakes the scheduler.
func (c *Core) DeleteReminder(ctx context.Context, id int64) error {
	if err := c.store.DeleteReminder(ctx, id); err != nil {
		return err
	}
	c.rem.Changed()
	return nil
}

// MailAccounts is the Mail accounts page: the accounts, what the index
// holds of each, and each account's last sync error.
type MailAccounts struct {
	Accounts []index.Account
	Stats    index.Stats
	Errors   map[int64]string
}

// MailAccounts reads the mail accounts. Stats are best effort: an account
// list without them still shows.
func (c *Core) MailAccounts(ctx context.Context) (MailAccounts, error) {
	ix := index.New(c.store)
	as, err := ix.Accounts(ctx)
	if err != nil {
		return MailAccounts{}, err
	}
	stats, _ := ix.Stats(ctx)
	_, errs := c.mail.Progress()
	return MailAccounts{Accounts: as, Stats: stats, Errors: errs}, nil
}

// AddMailAccount opens the keychain, gets the account's credentials (a
// sign-in may ask the lawyer in the browser), checks and adds the account,
// and records it in the world log. The keychain comes first so a lawyer is
// not asked to sign in for nothing.
func (c *Core) AddMailAccount(ctx context.Context, a index.Account,
	credentials func(context.Context) (accounts.Credentials, error)) (index.Account, error) {
	sec, err := c.keys.secrets()
	if err != nil {
		return index.Account{}, err
	}
	cr, err := credentials(ctx)
	if err != nil {
		return index.Account{}, err
	}
	a, err = accounts.Add(ctx, index.New(c.store), sec, a, cr)
	if err != nil {
		return index.Account{}, err
	}
	c.event(ctx, "user", fmt.Sprintf("account-%d", a.ID), "added mail account "+a.Name)
	return a, nil
}

// SignInMailAgain signs Microsoft 365 or Gmail account id in again, with
// every permission Spirit asks for now (its calendars too), and keeps the
// new sign-in; the account and its indexed mail stay. tell is
// accounts.SignIn's: what to tell the lawyer, and the page to open.
func (c *Core) SignInMailAgain(ctx context.Context, id int64, tell func(msg, url string)) (index.Account, error) {
	sec, err := c.keys.secrets()
	if err != nil {
		return index.Account{}, err
	}
	a, err := accounts.SignInAgain(ctx, index.New(c.store), sec, id, tell)
	if err != nil {
		return index.Account{}, err
	}
	c.event(ctx, "user", fmt.Sprintf("account-%d", a.ID), "signed in to mail account "+a.Name+" again")
	return a, nil
}

// RemoveMailAccount removes account id, its sign-in and its indexed mail.
func (c *Core) RemoveMailAccount(ctx context.Context, id int64) error {
	sec, err := c.keys.secrets()
	if err != nil {
		return err
	}
	return accounts.Remove(ctx, index.New(c.store), sec, id)
}

// SyncMailNow asks mail sync to run at once; the status line shows its
// progress.
func (c *Core) SyncMailNow() { c.mail.SyncNow() }

// SyncMail implements api.Backend: SyncMailNow for a command-line
// `spirit mail add` beside the running Spirit.
func (c *Core) SyncMail(context.Context) error {
	c.SyncMailNow()
	return nil
}

// ProviderName is how the Settings window and the world log name a model
// provider kind (setup.None, setup.Anthropic, setup.OpenAI).
func ProviderName(kind string) string {
	switch kind {
	case setup.Anthropic:
		return "Anthropic"
	case setup.OpenAI:
		return "OpenAI-compatible"
	}
	return "None (on-device rules only)"
}

// ProviderSettings reads the model provider's settings.
func (c *Core) ProviderSettings(ctx context.Context) (setup.Settings, error) {
	return setup.Load(ctx, c.store)
}

// SaveProviderSettings saves the model provider's settings, and apiKey
// into the keychain unless it is empty (the stored key is kept), and
// records the change in the world log.
func (c *Core) SaveProviderSettings(ctx context.Context, s setup.Settings, apiKey string) error {
	sec, err := c.keys.secrets()
	if err != nil {
		return err
	}
	if err := setup.Save(ctx, c.store, sec, s, apiKey); err != nil {
		return err
	}
	c.event(ctx, "user", "settings", "model provider set to "+ProviderName(s.Kind))
	return nil
}

// TestProvider asks the provider s describes for a short answer, and says
// how it went: with apiKey, the key just typed (nothing is saved), or
// with the key in the keychain when apiKey is empty. With no provider
// chosen it says so.
func (c *Core) TestProvider(ctx context.Context, s setup.Settings, apiKey string) (string, error) {
	if !s.Configured() {
		return "No provider chosen: Spirit uses its on-device rules only.", nil
	}
	var sec secrets.Store = typedKey(strings.TrimSpace(apiKey))
	if apiKey == "" {
		var err error
		if sec, err = c.keys.secrets(); err != nil {
			return "", err
		}
	}
	p, err := setup.Provider(ctx, s, sec, nil)
	if err != nil {
		return "", err
	}
	return setup.Test(ctx, p, s.Roles.Triage)
}

// typedKey is a key typed into a window, as the one secret a provider is
// built with to test it.
type typedKey string

func (k typedKey) Get(_ context.Context, key string) (string, error) {
	if key != setup.KeyName {
		return "", secrets.ErrNotFound
	}
	return string(k), nil
}
func (typedKey) Set(context.Context, string, string) error {
	return errors.New("a typed key is not kept")
}
func (typedKey) Delete(context.Context, string) error { return nil }
func (typedKey) Backend() string                      { return "typed" }

// SpeechModelInUse is the speech model file listening loaded; "" while
// none is.
func (c *Core) SpeechModelInUse() string { return c.voice.Model() }

// SpeechModelsChanged tells listening that a model was downloaded, chosen
// or deleted: it starts again with the one chosen now, without a restart.
func (c *Core) SpeechModelsChanged(ctx context.Context, what string) {
	c.event(ctx, "user", "settings", what)
	c.voice.Reload()
}
