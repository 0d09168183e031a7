// Package settings is Spirit's own settings as one typed value: what each
// stored key means, its default, and which values are valid, in one place.
//
// The settings live in the store's settings table, one row per key, in the
// same text formats Spirit has always written, so existing databases keep
// working. Load reads them all at once and Save writes back only what
// changed, in one transaction. The model provider's settings are not here:
// they belong to agents/llm/setup.
package settings

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/voice/model"
)

// Stored keys, exactly as existing databases have them.
const (
	KeyListeningPaused  = "listening.paused"
	KeyWatchingPaused   = "watching.paused"
	KeyPauseHotkey      = "hotkey.pause_listening"
	KeyFocusNudgeHotkey = "hotkey.focus_nudge"
	KeyWakePhrase       = "voice.wake_phrase"
	KeyTranscriptDays   = "voice.transcript_days"
	KeyVoiceModel       = "voice.model"
	KeyVoiceDevice      = "voice.device"
	KeyVoiceThreads     = "voice.threads"
	KeyExcludedApps     = "screen.excluded_apps"
	KeyExcludedTitles   = "screen.excluded_titles"
	KeyScreenText       = "screen.text"
	KeyGlanceMaxPerHour = "glance.max_per_hour"
	KeyGlanceQuietHours = "glance.quiet_hours"
	KeyDismissBackoff   = "glance.dismiss_backoff"
	KeySnoozeMinutes    = "nudge.snooze_minutes"
	KeyWorldKeepDays    = "world.keep_days"
	KeyWorkHeartbeat    = "work.heartbeat"
	KeyWorkActiveHours  = "work.active_hours"
	KeySetupDone        = "setup.done"
)

// Limits on numbers, so that a mistyped value is caught rather than obeyed.
const (
	MaxTranscriptDays   = 3650 // ten years
	MaxVoiceThreads     = 64
	MaxGlanceMaxPerHour = 60
	MaxSnoozeMinutes    = 24 * 60 // a day
	MaxWorldKeepDays    = 3650    // ten years
)

// HotkeyOff, stored as a shortcut, turns that shortcut off (so does "").
const HotkeyOff = "off"

// Settings is every setting Spirit keeps for itself. The zero value is not
// the defaults: start from Defaults or Load.
type Settings struct {
	// ListeningPaused keeps the microphone closed.
	// Stored as listening.paused, "true" or "false"; default false.
	ListeningPaused bool
	// WatchingPaused stops watching which app is in front.
	// Stored as watching.paused, "true" or "false"; default false.
	WatchingPaused bool

	// PauseHotkey toggles listening from anywhere, e.g. "Ctrl+Alt+P";
	// "off" or "" turns the shortcut off.
	// Stored as hotkey.pause_listening; default "Ctrl+Alt+P".
	PauseHotkey string
	// FocusNudgeHotkey brings the newest open nudge forward with the
	// keyboard in it; "off" or "" turns the shortcut off.
	// Stored as hotkey.focus_nudge; default "Ctrl+Alt+Space".
	FocusNudgeHotkey string

	// WakePhrase, when not empty, is what spoken commands must start with
	// (e.g. "hey spirit"); empty means no wake phrase is needed. Surrounding
	// spaces are not kept.
	// Stored as voice.wake_phrase; default "".
	WakePhrase string
	// TranscriptDays is how many days transcripts of what was heard are
	// kept; 0 keeps none. At most MaxTranscriptDays.
	// Stored as voice.transcript_days, a whole number; default 7.
	TranscriptDays int
	// VoiceModel is the speech model's catalog name (e.g. "base.en"); empty
	// means the best one installed.
	// Stored as voice.model; default "".
	VoiceModel string
	// VoiceDevice is the microphone's device name; empty means the system's
	// default input.
	// Stored as voice.device; default "".
	VoiceDevice string
	// VoiceThreads is how many threads transcribe speech; 0 chooses
	// automatically (up to 4). At most MaxVoiceThreads.
	// Stored as voice.threads, a whole number, "" for 0; default 0.
	VoiceThreads int

	// ExcludedApps are app names never looked at, on top of the built-in
	// rules (password managers, private windows).
	// Stored as screen.excluded_apps, comma-separated; default none.
	ExcludedApps []string
	// ExcludedTitles are window-title fragments never looked at.
	// Stored as screen.excluded_titles, comma-separated; default none.
	ExcludedTitles []string
	// ScreenText reads the text on a capture when a window title does not
	// say enough.
	// Stored as screen.text, "true" or "false"; default true.
	ScreenText bool

	// GlanceMaxPerHour caps the nudges Spirit raises on its own (glances,
	// meeting briefs, offers about calls, work delivered) in any hour; 0
	// turns them off.
	// At most MaxGlanceMaxPerHour.
	// Stored as glance.max_per_hour, a whole number; default 4.
	GlanceMaxPerHour int
	// GlanceQuietHours is when no nudge Spirit raises on its own is shown,
	// in local hours.
	// Stored as glance.quiet_hours, "20-8" or "" for none; default none.
	GlanceQuietHours QuietHours
	// DismissBackoff makes Spirit hold back after a glance nudge is
	// dismissed: 15 minutes after the first dismissal in a day, doubling
	// with each further one; off, a dismissal only closes that nudge.
	// Stored as glance.dismiss_backoff, "true" or "false"; default true.
	DismissBackoff bool
	// SnoozeMinutes is how long Snooze puts a reminder off when no time is
	// given (the bubble's Snooze button, "snooze that"). From 1 to
	// MaxSnoozeMinutes.
	// Stored as nudge.snooze_minutes, a whole number; default 10.
	SnoozeMinutes int

	// WorldKeepDays is how many days of activity (the world log) are kept;
	// older entries are deleted, except agents' lifecycles and what
	// happened to reminders. 0 keeps everything. At most MaxWorldKeepDays.
	// Stored as world.keep_days, a whole number; default 0.
	WorldKeepDays int

	// WorkHeartbeat lets Spirit look over the day every 30 minutes inside
	// the active hours, with a model provider, and speak up only when the
	// lawyer must act.
	// Stored as work.heartbeat, "true" or "false"; default true.
	WorkHeartbeat bool
	// WorkActiveHours are when the heartbeat may work; outside them the
	// model is never called.
	// Stored as work.active_hours, e.g. "mon-fri 08:00-19:00" (the default).
	WorkActiveHours ActiveHours

	// SetupDone is set once the lawyer went through the first-run window
	// (or Spirit found itself set up already); until then the window opens
	// at each start.
	// Stored as setup.done, "true" or "false"; default false.
	SetupDone bool
}

// Defaults are the settings of a new Spirit, and what a key never stored
// (or stored with a value that is not valid) reads as.
func Defaults() Settings {
	return Settings{
		PauseHotkey:      "Ctrl+Alt+P",
		FocusNudgeHotkey: "Ctrl+Alt+Space",
		TranscriptDays:   7,
		ScreenText:       true,
		GlanceMaxPerHour: 4,
		DismissBackoff:   true,
		SnoozeMinutes:    10,
		WorkHeartbeat:    true,
		WorkActiveHours:  DefaultActiveHours(),
	}
}

// ErrInvalid matches every error about a setting's value: those of Load,
// Validate, Save and the Parse functions. errors.As finds the first
// *FieldError in them, FieldErrors all of them.
var ErrInvalid = errors.New("setting is not valid")

// FieldError is one setting whose value is not valid.
type FieldError struct {
	Key    string // the stored key, e.g. "glance.quiet_hours"
	Value  string // the value as stored (or as it would be stored)
	Reason string // what a valid value looks like, in plain words
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s = %q: %s", e.Key, e.Value, e.Reason) }

// Is makes every FieldError match ErrInvalid.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

// FieldErrors lists every *FieldError in err, in order; none for nil or
// for an error about something else (such as the store failing).
func FieldErrors(err error) []*FieldError {
	var out []*FieldError
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *FieldError:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// Store is what settings need of *store.Store.
type Store interface {
	// AllSettings returns every stored key and value in one read.
	AllSettings(ctx context.Context) (map[string]string, error)
	// UpdateSettings gives fn the stored settings and writes what fn
	// returns, in one transaction.
	UpdateSettings(ctx context.Context, fn func(stored map[string]string) (map[string]string, error)) error
}

// Load reads the settings from st.
//
// The error contract, for callers that log and go on:
//   - st failing: the Defaults and that error (not ErrInvalid).
//   - stored values that do not parse or are not valid: the settings with
//     each such field at its default, the other fields as stored, and an
//     error matching ErrInvalid that names every such key and its value
//     (FieldErrors lists them). These settings are usable.
//   - otherwise the stored settings and nil.
//
// A key never stored reads as its default; so does an empty value where
// the format is a number or true/false.
func Load(ctx context.Context, st Store) (Settings, error) {
	stored, err := st.AllSettings(ctx)
	if err != nil {
		return Defaults(), fmt.Errorf("load settings: %w", err)
	}
	s, bad := fromStored(stored)
	if len(bad) > 0 {
		return s, fmt.Errorf("load settings: these saved settings are not valid, their defaults are used instead: %w", errors.Join(bad...))
	}
	return s, nil
}

// fromStored reads the stored key → value map onto the defaults.
func fromStored(stored map[string]string) (Settings, []error) {
	s := Defaults()
	var bad []error
	for _, f := range fields {
		raw, ok := stored[f.key]
		if !ok {
			continue
		}
		t := s
		if !f.parse(&t, raw) || !f.valid(t) {
			bad = append(bad, &FieldError{Key: f.key, Value: raw, Reason: f.rule})
			continue
		}
		s = t
	}
	return s, bad
}

// Validate reports every field whose value is not valid, as an error
// joining one *FieldError per field (in Keys order), or nil.
func (s Settings) Validate() error {
	var bad []error
	for _, f := range fields {
		if !f.valid(s) {
			bad = append(bad, &FieldError{Key: f.key, Value: f.format(s), Reason: f.rule})
		}
	}
	return errors.Join(bad...)
}

// Save validates s, then writes to st, in one transaction, only the keys
// whose value differs from what is stored, and returns those keys in Keys
// order so the caller can record them. Nothing is written when s is not
// valid (the error is Validate's) or when st fails.
//
// "Differs" is by meaning, not spelling: "Signal,Notes" stored and
// [Signal Notes] in s are the same, and nothing is written. A key never
// stored counts as holding its default, so saving the defaults to an empty
// database writes nothing; a stored value that is not valid always counts
// as different and is replaced.
//
// Save writes every field of s that differs from the store, including
// fields the caller did not mean to change: Load, change and Save without
// delay, or a setting changed meanwhile elsewhere (a pause toggled from the
// tray) is set back to what s holds.
func Save(ctx context.Context, st Store, s Settings) ([]string, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var changed []string
	err := st.UpdateSettings(ctx, func(stored map[string]string) (map[string]string, error) {
		changed = nil // in case the store calls fn again
		write := map[string]string{}
		def := Defaults()
		for _, f := range fields {
			want := f.format(s)
			var same bool
			if raw, ok := stored[f.key]; !ok {
				same = want == f.format(def)
			} else {
				t := def
				same = raw == want || f.parse(&t, raw) && f.valid(t) && f.format(t) == want
			}
			if !same {
				write[f.key] = want
				changed = append(changed, f.key)
			}
		}
		return write, nil
	})
	if err != nil {
		return nil, fmt.Errorf("save settings: %w", err)
	}
	return changed, nil
}

// Keys lists every stored key of Settings, in field order.
func Keys() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.key
	}
	return out
}

// Value is key's value in s as it is stored, e.g. for recording a change;
// ok is false for a key that is not one of Keys.
func (s Settings) Value(key string) (value string, ok bool) {
	for _, f := range fields {
		if f.key == key {
			return f.format(s), true
		}
	}
	return "", false
}

// Set sets the setting stored as key from raw, read as the stored format
// (the text typed into the Settings window). raw that does not parse or
// is not valid, or is empty where the setting needs a value, is a
// *FieldError saying what a valid value looks like; s is unchanged then.
// A key that is not one of Keys is an error too.
func (s *Settings) Set(key, raw string) error {
	for _, f := range fields {
		if f.key != key {
			continue
		}
		t := *s
		ok := f.parse(&t, raw) && f.valid(t)
		// Load reads an empty number or true/false as not set, keeping
		// the value; typed into a box, empty is a mistake.
		if strings.TrimSpace(raw) == "" && f.format(t) != "" {
			ok = false
		}
		if !ok {
			return &FieldError{Key: key, Value: raw, Reason: f.rule}
		}
		*s = t
		return nil
	}
	return fmt.Errorf("no setting is stored as %q", key)
}

// field is one key's format, parser and validity rule.
type field struct {
	key string
	// rule says what a valid value looks like, in plain words.
	rule string
	// format is the field's value in s as stored.
	format func(s Settings) string
	// parse sets the field in s from a stored value; false if it does not
	// parse.
	parse func(s *Settings, raw string) bool
	// check says whether the field's value in s is valid; nil accepts any.
	check func(s Settings) bool
}

func (f field) valid(s Settings) bool { return f.check == nil || f.check(s) }

// fields is every setting, in the order of the Settings struct.
var fields = []field{
	boolField(KeyListeningPaused, "Pause listening must be true or false.",
		func(s *Settings) *bool { return &s.ListeningPaused }),
	boolField(KeyWatchingPaused, "Pause watching must be true or false.",
		func(s *Settings) *bool { return &s.WatchingPaused }),
	hotkeyField(KeyPauseHotkey, "The shortcut to pause listening must be keys like Ctrl+Alt+P (Ctrl, Alt or Super, then one key), or off.",
		func(s *Settings) *string { return &s.PauseHotkey }),
	hotkeyField(KeyFocusNudgeHotkey, "The shortcut to the newest nudge must be keys like Ctrl+Alt+Space (Ctrl, Alt or Super, then one key), or off.",
		func(s *Settings) *string { return &s.FocusNudgeHotkey }),
	{
		key:    KeyWakePhrase,
		format: func(s Settings) string { return strings.TrimSpace(s.WakePhrase) },
		parse: func(s *Settings, raw string) bool {
			s.WakePhrase = strings.TrimSpace(raw)
			return true
		},
	},
	intField(KeyTranscriptDays, fmt.Sprintf("Transcripts must be kept for a whole number of days from 0 to %d (0 keeps none).", MaxTranscriptDays),
		0, MaxTranscriptDays, false, func(s *Settings) *int { return &s.TranscriptDays }),
	{
		key:    KeyVoiceModel,
		rule:   "The speech model must be one of " + strings.Join(modelNames(), ", ") + ", or empty for the best one installed.",
		format: func(s Settings) string { return s.VoiceModel },
		parse: func(s *Settings, raw string) bool {
			s.VoiceModel = strings.TrimSpace(raw)
			return true
		},
		check: func(s Settings) bool {
			if s.VoiceModel == "" {
				return true
			}
			_, err := model.Lookup(s.VoiceModel)
			return err == nil
		},
	},
	{
		key:    KeyVoiceDevice,
		format: func(s Settings) string { return s.VoiceDevice },
		parse: func(s *Settings, raw string) bool {
			s.VoiceDevice = raw // a device's name is whatever the system calls it
			return true
		},
	},
	intField(KeyVoiceThreads, fmt.Sprintf("Speech threads must be a whole number from 1 to %d, or empty to choose automatically.", MaxVoiceThreads),
		0, MaxVoiceThreads, true, func(s *Settings) *int { return &s.VoiceThreads }),
	listField(KeyExcludedApps, "App names to never look at are separated by commas, so a name cannot contain a comma.",
		func(s *Settings) *[]string { return &s.ExcludedApps }),
	listField(KeyExcludedTitles, "Window titles to never look at are separated by commas, so a title cannot contain a comma.",
		func(s *Settings) *[]string { return &s.ExcludedTitles }),
	boolField(KeyScreenText, "Reading text on screen must be true or false.",
		func(s *Settings) *bool { return &s.ScreenText }),
	intField(KeyGlanceMaxPerHour, fmt.Sprintf("Nudges Spirit raises on its own must be a whole number an hour from 0 to %d (0 turns them off).", MaxGlanceMaxPerHour),
		0, MaxGlanceMaxPerHour, false, func(s *Settings) *int { return &s.GlanceMaxPerHour }),
	{
		key:    KeyGlanceQuietHours,
		rule:   quietHoursRule,
		format: func(s Settings) string { return s.GlanceQuietHours.String() },
		parse: func(s *Settings, raw string) bool {
			q, err := ParseQuietHours(raw)
			s.GlanceQuietHours = q
			return err == nil
		},
		check: func(s Settings) bool { return s.GlanceQuietHours.valid() },
	},
	boolField(KeyDismissBackoff, "Holding back after a dismissed nudge must be true or false.",
		func(s *Settings) *bool { return &s.DismissBackoff }),
	intField(KeySnoozeMinutes, fmt.Sprintf("Snooze must be a whole number of minutes from 1 to %d.", MaxSnoozeMinutes),
		1, MaxSnoozeMinutes, false, func(s *Settings) *int { return &s.SnoozeMinutes }),
	intField(KeyWorldKeepDays, fmt.Sprintf("Activity must be kept for a whole number of days from 0 to %d (0 keeps all of it).", MaxWorldKeepDays),
		0, MaxWorldKeepDays, false, func(s *Settings) *int { return &s.WorldKeepDays }),
	boolField(KeyWorkHeartbeat, "The heartbeat must be true or false.",
		func(s *Settings) *bool { return &s.WorkHeartbeat }),
	{
		key:    KeyWorkActiveHours,
		rule:   activeHoursRule,
		format: func(s Settings) string { return s.WorkActiveHours.String() },
		parse: func(s *Settings, raw string) bool {
			if strings.TrimSpace(raw) == "" {
				return true // empty reads as not set: the default stays
			}
			a, err := ParseActiveHours(raw)
			s.WorkActiveHours = a
			return err == nil
		},
		check: func(s Settings) bool { return s.WorkActiveHours.valid() },
	},
	boolField(KeySetupDone, "Whether Spirit is set up must be true or false.",
		func(s *Settings) *bool { return &s.SetupDone }),
}

func boolField(key, rule string, p func(*Settings) *bool) field {
	return field{
		key:    key,
		rule:   rule,
		format: func(s Settings) string { return strconv.FormatBool(*p(&s)) },
		parse: func(s *Settings, raw string) bool {
			raw = strings.TrimSpace(raw)
			if raw == "" {
				return true // empty reads as not set: the default stays
			}
			b, err := strconv.ParseBool(raw)
			*p(s) = b
			return err == nil
		},
	}
}

// intField is a whole number from lo to hi. With zeroEmpty, 0 is stored as
// "" (voice.threads: empty means automatic).
func intField(key, rule string, lo, hi int, zeroEmpty bool, p func(*Settings) *int) field {
	return field{
		key:  key,
		rule: rule,
		format: func(s Settings) string {
			n := *p(&s)
			if zeroEmpty && n == 0 {
				return ""
			}
			return strconv.Itoa(n)
		},
		parse: func(s *Settings, raw string) bool {
			raw = strings.TrimSpace(raw)
			if raw == "" && zeroEmpty {
				*p(s) = 0 // stored "" is 0
				return true
			}
			if raw == "" {
				return true // empty reads as not set: the default stays
			}
			n, err := strconv.Atoi(raw)
			*p(s) = n
			return err == nil
		},
		check: func(s Settings) bool { n := *p(&s); return n >= lo && n <= hi },
	}
}

// hotkeyField is a global shortcut as platform.ParseHotkey reads it, or
// "off" (any case) or "" for none.
func hotkeyField(key, rule string, p func(*Settings) *string) field {
	return field{
		key:    key,
		rule:   rule,
		format: func(s Settings) string { return strings.TrimSpace(*p(&s)) },
		parse: func(s *Settings, raw string) bool {
			raw = strings.TrimSpace(raw)
			if strings.EqualFold(raw, HotkeyOff) {
				raw = HotkeyOff
			}
			*p(s) = raw
			return true
		},
		check: func(s Settings) bool {
			v := strings.TrimSpace(*p(&s))
			if v == "" || v == HotkeyOff {
				return true
			}
			_, err := platform.ParseHotkey(v)
			return err == nil
		},
	}
}

func listField(key, rule string, p func(*Settings) *[]string) field {
	return field{
		key:    key,
		rule:   rule,
		format: func(s Settings) string { return FormatList(*p(&s)) },
		parse: func(s *Settings, raw string) bool {
			*p(s) = ParseList(raw)
			return true
		},
		check: func(s Settings) bool {
			return !slices.ContainsFunc(*p(&s), func(v string) bool { return strings.Contains(v, ",") })
		},
	}
}

// ParseList reads a comma-separated list as stored (and as typed in the
// Settings window): entries trimmed, empty ones dropped; nil if none.
func ParseList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// FormatList is a list as stored: entries trimmed, empty ones dropped,
// joined by ", ". An entry containing a comma would come back as two:
// Validate refuses it.
func FormatList(list []string) string {
	var kept []string
	for _, v := range list {
		if v = strings.TrimSpace(v); v != "" {
			kept = append(kept, v)
		}
	}
	return strings.Join(kept, ", ")
}

func modelNames() []string {
	var names []string
	for _, m := range model.Catalog() {
		names = append(names, m.Name)
	}
	return names
}
