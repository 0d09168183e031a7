package settings_test

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/settings"
)

var _ settings.Store = (*store.Store)(nil)

func openStore(t *testing.T, stored map[string]string) *store.Store {
	t.Helper()
	s, err := store.OpenDir(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	for k, v := range stored {
		if err := s.SetSetting(t.Context(), k, v); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func storedIn(t *testing.T, s *store.Store) map[string]string {
	t.Helper()
	m, err := s.AllSettings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestKeys(t *testing.T) {
	want := []string{
		"listening.paused", "watching.paused",
		"hotkey.pause_listening", "hotkey.focus_nudge",
		"voice.wake_phrase", "voice.transcript_days", "voice.model", "voice.device", "voice.threads",
		"screen.excluded_apps", "screen.excluded_titles", "screen.text",
		"glance.max_per_hour", "glance.quiet_hours", "glance.dismiss_backoff", "nudge.snooze_minutes",
		"world.keep_days",
		"work.heartbeat", "work.active_hours",
		"setup.done",
	}
	if got := settings.Keys(); !slices.Equal(got, want) {
		t.Fatalf("got %q,\nwant %q", got, want)
	}
}

func TestDefaults(t *testing.T) {
	want := settings.Settings{
		ListeningPaused:  false,
		WatchingPaused:   false,
		PauseHotkey:      "Ctrl+Alt+P",
		FocusNudgeHotkey: "Ctrl+Alt+Space",
		WakePhrase:       "",
		TranscriptDays:   7,
		VoiceModel:       "",
		VoiceDevice:      "",
		VoiceThreads:     0,
		ExcludedApps:     nil,
		ExcludedTitles:   nil,
		ScreenText:       true,
		GlanceMaxPerHour: 4,
		GlanceQuietHours: settings.QuietHours{},
		DismissBackoff:   true,
		SnoozeMinutes:    10,
		WorkHeartbeat:    true,
		WorkActiveHours: settings.ActiveHours{Days: [7]bool{false, true, true, true, true, true, false},
			From: 8 * 60, To: 19 * 60},
	}
	got := settings.Defaults()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v,\nwant %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("the defaults are not valid: %v", err)
	}
}

func TestDefaultsStoredValues(t *testing.T) {
	want := map[string]string{
		"listening.paused":       "false",
		"watching.paused":        "false",
		"hotkey.pause_listening": "Ctrl+Alt+P",
		"hotkey.focus_nudge":     "Ctrl+Alt+Space",
		"voice.wake_phrase":      "",
		"voice.transcript_days":  "7",
		"voice.model":            "",
		"voice.device":           "",
		"voice.threads":          "",
		"screen.excluded_apps":   "",
		"screen.excluded_titles": "",
		"screen.text":            "true",
		"glance.max_per_hour":    "4",
		"glance.quiet_hours":     "",
		"glance.dismiss_backoff": "true",
		"nudge.snooze_minutes":   "10",
		"world.keep_days":        "0",
		"work.heartbeat":         "true",
		"work.active_hours":      "mon-fri 08:00-19:00",
		"setup.done":             "false",
	}
	d := settings.Defaults()
	for _, k := range settings.Keys() {
		got, ok := d.Value(k)
		if !ok || got != want[k] {
			t.Errorf("Value(%q) = %q, %v; want %q", k, got, ok, want[k])
		}
	}
	if v, ok := d.Value("model.provider"); ok || v != "" {
		t.Errorf("Value of a key that is not a setting here = %q, %v", v, ok)
	}
}

func TestParseList(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"spaces and commas only", " , ,, ", nil},
		{"one", "Signal", []string{"Signal"}},
		{"as typed in Settings", "Signal, Personal Notes", []string{"Signal", "Personal Notes"}},
		{"no spaces", "Signal,Notes", []string{"Signal", "Notes"}},
		{"blank entries dropped", ",Signal,, Notes ,", []string{"Signal", "Notes"}},
		{"spaces inside kept", "  Personal   Notes ", []string{"Personal   Notes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := settings.ParseList(tc.in); !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFormatList(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want string
	}{
		{"nil", nil, ""},
		{"empty", []string{}, ""},
		{"one", []string{"Signal"}, "Signal"},
		{"two", []string{"Signal", "Personal Notes"}, "Signal, Personal Notes"},
		{"trimmed, blanks dropped", []string{" Signal ", "", "  ", "Notes"}, "Signal, Notes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := settings.FormatList(tc.in)
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if back := settings.FormatList(settings.ParseList(got)); back != got {
				t.Fatalf("%q read back and written again is %q", got, back)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*settings.Settings)
		want   []settings.FieldError
	}{
		{"defaults", func(*settings.Settings) {}, nil},
		{"hotkeys off", func(s *settings.Settings) { s.PauseHotkey, s.FocusNudgeHotkey = "off", "" }, nil},
		{"other hotkeys", func(s *settings.Settings) { s.PauseHotkey, s.FocusNudgeHotkey = "Super+F12", "ctrl+shift+alt+k" }, nil},
		{"every model in the catalog", func(s *settings.Settings) { s.VoiceModel = "small.en" }, nil},
		{"bounds", func(s *settings.Settings) {
			s.TranscriptDays, s.VoiceThreads, s.GlanceMaxPerHour = 0, 64, 60
		}, nil},
		{"most days", func(s *settings.Settings) { s.TranscriptDays = 3650 }, nil},
		{"quiet hours", func(s *settings.Settings) { s.GlanceQuietHours = settings.QuietHours{From: 23, To: 24, On: true} }, nil},
		{"hotkey without a modifier", func(s *settings.Settings) { s.PauseHotkey = "P" }, []settings.FieldError{
			{Key: "hotkey.pause_listening", Value: "P", Reason: "The shortcut to pause listening must be keys like Ctrl+Alt+P (Ctrl, Alt or Super, then one key), or off."}}},
		{"hotkey with an unknown modifier", func(s *settings.Settings) { s.FocusNudgeHotkey = "Hyper+Space" }, []settings.FieldError{
			{Key: "hotkey.focus_nudge", Value: "Hyper+Space", Reason: "The shortcut to the newest nudge must be keys like Ctrl+Alt+Space (Ctrl, Alt or Super, then one key), or off."}}},
		{"negative days", func(s *settings.Settings) { s.TranscriptDays = -1 }, []settings.FieldError{
			{Key: "voice.transcript_days", Value: "-1", Reason: "Transcripts must be kept for a whole number of days from 0 to 3650 (0 keeps none)."}}},
		{"too many days", func(s *settings.Settings) { s.TranscriptDays = 3651 }, []settings.FieldError{
			{Key: "voice.transcript_days", Value: "3651", Reason: "Transcripts must be kept for a whole number of days from 0 to 3650 (0 keeps none)."}}},
		{"unknown model", func(s *settings.Settings) { s.VoiceModel = "large-v3" }, []settings.FieldError{
			{Key: "voice.model", Value: "large-v3", Reason: "The speech model must be one of tiny.en, base.en, small.en, or empty for the best one installed."}}},
		{"too many threads", func(s *settings.Settings) { s.VoiceThreads = 65 }, []settings.FieldError{
			{Key: "voice.threads", Value: "65", Reason: "Speech threads must be a whole number from 1 to 64, or empty to choose automatically."}}},
		{"negative threads", func(s *settings.Settings) { s.VoiceThreads = -2 }, []settings.FieldError{
			{Key: "voice.threads", Value: "-2", Reason: "Speech threads must be a whole number from 1 to 64, or empty to choose automatically."}}},
		{"app name with a comma", func(s *settings.Settings) { s.ExcludedApps = []string{"Signal", "Smith, Jones LLP"} }, []settings.FieldError{
			{Key: "screen.excluded_apps", Value: "Signal, Smith, Jones LLP", Reason: "App names to never look at are separated by commas, so a name cannot contain a comma."}}},
		{"title with a comma", func(s *settings.Settings) { s.ExcludedTitles = []string{"Re: a, b"} }, []settings.FieldError{
			{Key: "screen.excluded_titles", Value: "Re: a, b", Reason: "Window titles to never look at are separated by commas, so a title cannot contain a comma."}}},
		{"glance nudges per hour", func(s *settings.Settings) { s.GlanceMaxPerHour = 61 }, []settings.FieldError{
			{Key: "glance.max_per_hour", Value: "61", Reason: "Nudges Spirit raises on its own must be a whole number an hour from 0 to 60 (0 turns them off)."}}},
		{"snooze bounds", func(s *settings.Settings) { s.SnoozeMinutes = 1440 }, nil},
		{"activity kept ten years", func(s *settings.Settings) { s.WorldKeepDays = 3650 }, nil},
		{"activity kept negative days", func(s *settings.Settings) { s.WorldKeepDays = -1 }, []settings.FieldError{
			{Key: "world.keep_days", Value: "-1", Reason: "Activity must be kept for a whole number of days from 0 to 3650 (0 keeps all of it)."}}},
		{"no snooze", func(s *settings.Settings) { s.SnoozeMinutes = 0 }, []settings.FieldError{
			{Key: "nudge.snooze_minutes", Value: "0", Reason: "Snooze must be a whole number of minutes from 1 to 1440."}}},
		{"snooze over a day", func(s *settings.Settings) { s.SnoozeMinutes = 1441 }, []settings.FieldError{
			{Key: "nudge.snooze_minutes", Value: "1441", Reason: "Snooze must be a whole number of minutes from 1 to 1440."}}},
		{"quiet hour past midnight", func(s *settings.Settings) { s.GlanceQuietHours = settings.QuietHours{From: 20, To: 25, On: true} }, []settings.FieldError{
			{Key: "glance.quiet_hours", Value: "20-25", Reason: "Quiet hours must look like 20-8 (from hour to hour, 0 to 24), or be empty for none."}}},
		{"quiet hours from 24", func(s *settings.Settings) { s.GlanceQuietHours = settings.QuietHours{From: 24, To: 8, On: true} }, []settings.FieldError{
			{Key: "glance.quiet_hours", Value: "24-8", Reason: "Quiet hours must look like 20-8 (from hour to hour, 0 to 24), or be empty for none."}}},
		{"several, in key order", func(s *settings.Settings) {
			s.GlanceMaxPerHour, s.PauseHotkey, s.TranscriptDays = -1, "Ctrl+", 99999
		}, []settings.FieldError{
			{Key: "hotkey.pause_listening", Value: "Ctrl+", Reason: "The shortcut to pause listening must be keys like Ctrl+Alt+P (Ctrl, Alt or Super, then one key), or off."},
			{Key: "voice.transcript_days", Value: "99999", Reason: "Transcripts must be kept for a whole number of days from 0 to 3650 (0 keeps none)."},
			{Key: "glance.max_per_hour", Value: "-1", Reason: "Nudges Spirit raises on its own must be a whole number an hour from 0 to 60 (0 turns them off)."},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := settings.Defaults()
			tc.change(&s)
			err := s.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, settings.ErrInvalid) {
				t.Fatalf("err = %v, want one matching ErrInvalid", err)
			}
			var got []settings.FieldError
			for _, fe := range settings.FieldErrors(err) {
				got = append(got, *fe)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got  %+v,\nwant %+v", got, tc.want)
			}
			var first *settings.FieldError
			if !errors.As(err, &first) || *first != tc.want[0] {
				t.Errorf("errors.As found %+v, want %+v", first, tc.want[0])
			}
		})
	}
}

func TestFieldErrorMessage(t *testing.T) {
	err := error(&settings.FieldError{Key: "glance.quiet_hours", Value: "25-8", Reason: "Quiet hours must look like 20-8 (from hour to hour, 0 to 24), or be empty for none."})
	want := `glance.quiet_hours = "25-8": Quiet hours must look like 20-8 (from hour to hour, 0 to 24), or be empty for none.`
	if got := err.Error(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if !errors.Is(err, settings.ErrInvalid) {
		t.Fatal("a FieldError does not match ErrInvalid")
	}
	if got := settings.FieldErrors(errors.New("disk full")); got != nil {
		t.Fatalf("FieldErrors of another error = %v", got)
	}
	if got := settings.FieldErrors(nil); got != nil {
		t.Fatalf("FieldErrors(nil) = %v", got)
	}
}

// custom is a Settings with every field away from its default.
func custom() settings.Settings {
	return settings.Settings{
		ListeningPaused:  true,
		WatchingPaused:   true,
		PauseHotkey:      "Ctrl+Shift+L",
		FocusNudgeHotkey: "off",
		WakePhrase:       "hey spirit",
		TranscriptDays:   30,
		VoiceModel:       "small.en",
		VoiceDevice:      "USB Audio: Yeti (hw:1,0)",
		VoiceThreads:     2,
		ExcludedApps:     []string{"Signal", "Personal Notes"},
		ExcludedTitles:   []string{"Private", "Bank"},
		ScreenText:       false,
		GlanceMaxPerHour: 0,
		GlanceQuietHours: settings.QuietHours{From: 20, To: 8, On: true},
		DismissBackoff:   false,
		SnoozeMinutes:    25,
		WorldKeepDays:    90,
		WorkHeartbeat:    false,
		WorkActiveHours:  settings.ActiveHours{Days: [7]bool{time.Sunday: true, time.Saturday: true}, From: 9 * 60, To: 13*60 + 30},
		SetupDone:        true,
	}
}

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stored  map[string]string
		want    func(*settings.Settings) // applied to the defaults
		wantBad map[string]string        // key → stored value reported
	}{
		{"nothing stored", nil, func(*settings.Settings) {}, nil},
		{"what Spirit wrote before this package", map[string]string{
			"listening.paused":       "true",
			"watching.paused":        "true",
			"hotkey.pause_listening": "Ctrl+Shift+L",
			"hotkey.focus_nudge":     "off",
			"voice.wake_phrase":      "hey spirit",
			"voice.transcript_days":  "30",
			"voice.model":            "small.en",
			"voice.device":           "USB Audio: Yeti (hw:1,0)",
			"voice.threads":          "2",
			"screen.excluded_apps":   "Signal, Personal Notes",
			"screen.excluded_titles": "Private,Bank",
			"screen.text":            "false",
			"glance.max_per_hour":    "0",
			"glance.quiet_hours":     "20-8",
		}, func(s *settings.Settings) {
			// Keys added since keep their defaults.
			*s = custom()
			s.WorkHeartbeat, s.WorkActiveHours = true, settings.DefaultActiveHours()
			s.DismissBackoff, s.SnoozeMinutes, s.WorldKeepDays = true, 10, 0
			s.SetupDone = false
		}, nil},
		{"other keys ignored", map[string]string{"model.provider": "anthropic", "mail.x": "1"}, func(*settings.Settings) {}, nil},
		{"empty numbers and booleans read as not set", map[string]string{
			"listening.paused": "", "screen.text": " ", "voice.transcript_days": "", "glance.max_per_hour": "", "voice.threads": "",
		}, func(*settings.Settings) {}, nil},
		{"empty strings, lists and hotkeys are values", map[string]string{
			"hotkey.pause_listening": "", "voice.wake_phrase": "", "screen.excluded_apps": "", "glance.quiet_hours": "",
		}, func(s *settings.Settings) { s.PauseHotkey = "" }, nil},
		{"lenient spellings", map[string]string{
			"listening.paused": "1", "watching.paused": "TRUE", "voice.wake_phrase": "  hey spirit ",
			"hotkey.focus_nudge": "OFF", "voice.transcript_days": " 1 ", "glance.quiet_hours": " 22 - 6 ",
			"screen.excluded_apps": ",Signal,,", "voice.threads": "0",
		}, func(s *settings.Settings) {
			s.ListeningPaused, s.WatchingPaused, s.WakePhrase = true, true, "hey spirit"
			s.FocusNudgeHotkey, s.TranscriptDays = "off", 1
			s.GlanceQuietHours = settings.QuietHours{From: 22, To: 6, On: true}
			s.ExcludedApps = []string{"Signal"}
		}, nil},
		{"invalid values fall back, valid ones stay", map[string]string{
			"listening.paused":       "yes please",
			"watching.paused":        "true",
			"hotkey.pause_listening": "P",
			"voice.transcript_days":  "a week",
			"voice.model":            "large-v3",
			"voice.threads":          "100",
			"glance.max_per_hour":    "-3",
			"glance.quiet_hours":     "25-8",
			"screen.excluded_apps":   "Signal",
		}, func(s *settings.Settings) {
			s.WatchingPaused = true
			s.ExcludedApps = []string{"Signal"}
		}, map[string]string{
			"listening.paused":       "yes please",
			"hotkey.pause_listening": "P",
			"voice.transcript_days":  "a week",
			"voice.model":            "large-v3",
			"voice.threads":          "100",
			"glance.max_per_hour":    "-3",
			"glance.quiet_hours":     "25-8",
		}},
		{"nudge pacing", map[string]string{"glance.dismiss_backoff": "false", "nudge.snooze_minutes": " 30 "},
			func(s *settings.Settings) { s.DismissBackoff, s.SnoozeMinutes = false, 30 }, nil},
		{"no snooze length", map[string]string{"nudge.snooze_minutes": "0"}, func(*settings.Settings) {},
			map[string]string{"nudge.snooze_minutes": "0"}},
		{"out of range days", map[string]string{"voice.transcript_days": "-1"}, func(*settings.Settings) {},
			map[string]string{"voice.transcript_days": "-1"}},
		{"quiet hours without a dash", map[string]string{"glance.quiet_hours": "20"}, func(*settings.Settings) {},
			map[string]string{"glance.quiet_hours": "20"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, tc.stored)
			want := settings.Defaults()
			tc.want(&want)
			got, err := settings.Load(t.Context(), st)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v,\nwant %+v", got, want)
			}
			if len(tc.wantBad) == 0 {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, settings.ErrInvalid) {
				t.Fatalf("err = %v, want one matching ErrInvalid", err)
			}
			bad := map[string]string{}
			for _, fe := range settings.FieldErrors(err) {
				bad[fe.Key] = fe.Value
				if fe.Reason == "" {
					t.Errorf("%s: no reason given", fe.Key)
				}
				if !strings.Contains(err.Error(), fe.Key) || !strings.Contains(err.Error(), fe.Value) {
					t.Errorf("the message does not name %s = %q: %v", fe.Key, fe.Value, err)
				}
			}
			if !maps.Equal(bad, tc.wantBad) {
				t.Errorf("reported %v, want %v", bad, tc.wantBad)
			}
		})
	}
}

func TestLoadMessage(t *testing.T) {
	st := openStore(t, map[string]string{"glance.quiet_hours": "25-8", "listening.paused": "maybe"})
	_, err := settings.Load(t.Context(), st)
	want := "load settings: these saved settings are not valid, their defaults are used instead: " +
		`listening.paused = "maybe": Pause listening must be true or false.` + "\n" +
		`glance.quiet_hours = "25-8": Quiet hours must look like 20-8 (from hour to hour, 0 to 24), or be empty for none.`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}

func TestLoadStoreError(t *testing.T) {
	st, err := store.OpenDir(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := settings.Load(t.Context(), st)
	if err == nil || errors.Is(err, settings.ErrInvalid) {
		t.Fatalf("err = %v, want the store's error, not ErrInvalid", err)
	}
	if len(settings.FieldErrors(err)) != 0 {
		t.Errorf("field errors from a store error: %v", settings.FieldErrors(err))
	}
	if !reflect.DeepEqual(got, settings.Defaults()) {
		t.Errorf("got %+v, want the defaults", got)
	}
}

func TestSave(t *testing.T) {
	for _, tc := range []struct {
		name        string
		stored      map[string]string
		change      func(*settings.Settings) // applied to the defaults
		wantChanged []string
		wantStored  map[string]string
	}{
		{"defaults to an empty database write nothing", nil, func(*settings.Settings) {}, nil, map[string]string{}},
		{"one change writes one key", nil, func(s *settings.Settings) { s.GlanceQuietHours = settings.QuietHours{From: 20, To: 8, On: true} },
			[]string{"glance.quiet_hours"}, map[string]string{"glance.quiet_hours": "20-8"}},
		{"unchanged stored values are not rewritten", map[string]string{"screen.text": "false", "voice.transcript_days": "30"},
			func(s *settings.Settings) { s.ScreenText, s.TranscriptDays, s.ListeningPaused = false, 30, true },
			[]string{"listening.paused"},
			map[string]string{"screen.text": "false", "voice.transcript_days": "30", "listening.paused": "true"}},
		{"same meaning, other spelling, is not a change", map[string]string{
			"screen.excluded_apps": "Signal,Notes", "listening.paused": "1", "glance.quiet_hours": " 20 - 8", "hotkey.focus_nudge": "OFF",
		}, func(s *settings.Settings) {
			s.ExcludedApps, s.ListeningPaused = []string{"Signal", "Notes"}, true
			s.GlanceQuietHours, s.FocusNudgeHotkey = settings.QuietHours{From: 20, To: 8, On: true}, "off"
		}, nil, map[string]string{
			"screen.excluded_apps": "Signal,Notes", "listening.paused": "1", "glance.quiet_hours": " 20 - 8", "hotkey.focus_nudge": "OFF",
		}},
		{"back to a default is written", map[string]string{"voice.transcript_days": "30"}, func(*settings.Settings) {},
			[]string{"voice.transcript_days"}, map[string]string{"voice.transcript_days": "7"}},
		{"an invalid stored value is replaced", map[string]string{"glance.quiet_hours": "25-8", "voice.transcript_days": "abc"},
			func(*settings.Settings) {},
			[]string{"voice.transcript_days", "glance.quiet_hours"},
			map[string]string{"glance.quiet_hours": "", "voice.transcript_days": "7"}},
		{"other keys are left alone", map[string]string{"model.provider": "anthropic"}, func(s *settings.Settings) { s.VoiceThreads = 3 },
			[]string{"voice.threads"}, map[string]string{"model.provider": "anthropic", "voice.threads": "3"}},
		{"automatic threads are stored empty", map[string]string{"voice.threads": "4"}, func(*settings.Settings) {},
			[]string{"voice.threads"}, map[string]string{"voice.threads": ""}},
		{"lists are stored comma-separated", nil, func(s *settings.Settings) {
			s.ExcludedApps, s.ExcludedTitles = []string{"Signal", "Personal Notes"}, []string{" Bank ", ""}
		}, []string{"screen.excluded_apps", "screen.excluded_titles"},
			map[string]string{"screen.excluded_apps": "Signal, Personal Notes", "screen.excluded_titles": "Bank"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, tc.stored)
			s := settings.Defaults()
			tc.change(&s)
			changed, err := settings.Save(t.Context(), st, s)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(changed, tc.wantChanged) {
				t.Errorf("changed %q, want %q", changed, tc.wantChanged)
			}
			if got := storedIn(t, st); !maps.Equal(got, tc.wantStored) {
				t.Errorf("stored %v,\nwant   %v", got, tc.wantStored)
			}
		})
	}
}

func TestSaveInvalidWritesNothing(t *testing.T) {
	before := map[string]string{"voice.transcript_days": "30"}
	st := openStore(t, before)
	s := settings.Defaults()
	s.ListeningPaused = true                                            // valid, but must not be written either
	s.GlanceQuietHours = settings.QuietHours{From: 30, To: 8, On: true} // not valid
	changed, err := settings.Save(t.Context(), st, s)
	if !errors.Is(err, settings.ErrInvalid) || changed != nil {
		t.Fatalf("Save = %q, %v; want nothing and ErrInvalid", changed, err)
	}
	if fes := settings.FieldErrors(err); len(fes) != 1 || fes[0].Key != "glance.quiet_hours" || fes[0].Value != "30-8" {
		t.Errorf("field errors %+v", fes)
	}
	if got := storedIn(t, st); !maps.Equal(got, before) {
		t.Fatalf("stored %v, want %v", got, before)
	}
}

func TestSaveReadOnly(t *testing.T) {
	dir := t.TempDir()
	w, err := store.OpenDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenDirReadOnly(t.Context(), dir, store.ReadOnlyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	s, err := settings.Load(t.Context(), ro)
	if err != nil {
		t.Fatalf("Load from a read-only store: %v", err)
	}
	s.ListeningPaused = true
	changed, err := settings.Save(t.Context(), ro, s)
	if !errors.Is(err, store.ErrReadOnly) || errors.Is(err, settings.ErrInvalid) || changed != nil {
		t.Fatalf("Save to a read-only store = %q, %v; want the store's ErrReadOnly", changed, err)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name        string
		s           settings.Settings
		wantChanged []string
	}{
		{"defaults", settings.Defaults(), nil},
		{"every field changed", custom(), settings.Keys()},
		{"hotkeys empty, whole-day quiet hours", func() settings.Settings {
			s := settings.Defaults()
			s.PauseHotkey, s.FocusNudgeHotkey = "", ""
			s.GlanceQuietHours = settings.QuietHours{From: 0, To: 24, On: true}
			return s
		}(), []string{"hotkey.pause_listening", "hotkey.focus_nudge", "glance.quiet_hours"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, nil)
			changed, err := settings.Save(t.Context(), st, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(changed, tc.wantChanged) {
				t.Errorf("first save changed %q, want %q", changed, tc.wantChanged)
			}
			got, err := settings.Load(t.Context(), st)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.s) {
				t.Errorf("loaded %+v,\nsaved  %+v", got, tc.s)
			}
			if changed, err := settings.Save(t.Context(), st, got); err != nil || changed != nil {
				t.Errorf("saving what was loaded changed %q, %v; want nothing", changed, err)
			}
		})
	}
}

func TestSet(t *testing.T) {
	for _, tc := range []struct {
		name, key, raw string
		check          func(settings.Settings) bool // on success
		wantReason     string                       // "" : no error
	}{
		{"a number", settings.KeyGlanceMaxPerHour, " 6 ", func(s settings.Settings) bool { return s.GlanceMaxPerHour == 6 }, ""},
		{"zero turns nudges off", settings.KeyGlanceMaxPerHour, "0", func(s settings.Settings) bool { return s.GlanceMaxPerHour == 0 }, ""},
		{"a number out of range", settings.KeyGlanceMaxPerHour, "61", nil, "Nudges Spirit raises on its own must be a whole number an hour from 0 to 60 (0 turns them off)."},
		{"words for a number", settings.KeySnoozeMinutes, "ten", nil, "Snooze must be a whole number of minutes from 1 to 1440."},
		{"an empty number", settings.KeySnoozeMinutes, " ", nil, "Snooze must be a whole number of minutes from 1 to 1440."},
		{"quiet hours", settings.KeyGlanceQuietHours, "22-7", func(s settings.Settings) bool {
			return s.GlanceQuietHours == settings.QuietHours{From: 22, To: 7, On: true}
		}, ""},
		{"no quiet hours", settings.KeyGlanceQuietHours, "", func(s settings.Settings) bool { return !s.GlanceQuietHours.On }, ""},
		{"quiet hours not understood", settings.KeyGlanceQuietHours, "10pm to 7am", nil, "Quiet hours must look like 20-8 (from hour to hour, 0 to 24), or be empty for none."},
		{"true or false", settings.KeyDismissBackoff, "false", func(s settings.Settings) bool { return !s.DismissBackoff }, ""},
		{"threads empty is automatic", settings.KeyVoiceThreads, "", func(s settings.Settings) bool { return s.VoiceThreads == 0 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := settings.Defaults()
			s.VoiceThreads = 3
			before := s
			err := s.Set(tc.key, tc.raw)
			if tc.wantReason != "" {
				var fe *settings.FieldError
				if !errors.As(err, &fe) || fe.Reason != tc.wantReason || fe.Key != tc.key {
					t.Fatalf("Set(%q, %q) = %v, want the reason %q", tc.key, tc.raw, err, tc.wantReason)
				}
				if !reflect.DeepEqual(s, before) {
					t.Errorf("a refused value changed the settings: %+v", s)
				}
				return
			}
			if err != nil || !tc.check(s) {
				t.Errorf("Set(%q, %q) = %v; settings %+v", tc.key, tc.raw, err, s)
			}
		})
	}
	s := settings.Defaults()
	if err := s.Set("model.provider", "x"); err == nil {
		t.Error("Set of a key that is not a setting succeeded")
	}
}
